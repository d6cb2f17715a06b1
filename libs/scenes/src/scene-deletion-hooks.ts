import { Injectable } from '@nestjs/common';
import { Tx } from '@app/core';

export interface DeletedScene {
  id: string;
  organizationId: string;
}

/** Runs inside the deleting transaction: what it writes commits with the deletion, or not at all. */
export type SceneDeletionHook = (tx: Tx, scene: DeletedScene, at: Date) => Promise<void>;

/**
 * Runs once the deletion has committed, in a transaction of its own, for bookkeeping whose size
 * grows with what the scene had (its embed sessions, by the thousand): the deletion itself stays
 * short, what it must tell others (the studios) goes out as soon as it commits, and the DELETE
 * is answered without waiting for it (the scheduler below hands it to a job). Whatever the
 * scene's rows say, a deleted scene already grants nothing. The purge of the deleted scene runs
 * the follow-ups again before it finishes (a job lost, a process that died after the commit), so
 * a follow-up must be idempotent: a second run finds nothing left to do. `at` is the deletion's time.
 */
export type SceneDeletionFollowUp = (tx: Tx, scene: DeletedScene, at: Date) => Promise<void>;

/**
 * In the deleting transaction: whether its follow-up will find anything to do (a scene with no
 * open session needs no job). A cheap read; a false "yes" costs one job that finds nothing.
 */
export type SceneDeletionFollowUpPending = (tx: Tx, scene: DeletedScene, at: Date) => Promise<boolean>;

/**
 * Has the follow-ups of a committed deletion run soon, elsewhere (libs/operations: a job on the
 * worker, which reads the deletion's time from the scene and calls `runFollowUps`). Rejects when
 * it could not; the purge runs them then.
 */
export type SceneDeletionFollowUpScheduler = (scene: DeletedScene) => Promise<void>;

/**
 * The extension point of scene deletion. Libraries that depend on scenes (embed sessions revoke
 * theirs here) register a hook at module init; scenes itself knows none of them, which keeps
 * the dependency one-way.
 */
@Injectable()
export class SceneDeletionHooks {
  private readonly hooks = new Map<string, SceneDeletionHook>();
  private readonly followUps = new Map<string, { run: SceneDeletionFollowUp; pending: SceneDeletionFollowUpPending }>();
  private scheduler: SceneDeletionFollowUpScheduler | null = null;

  register(name: string, hook: SceneDeletionHook): void {
    if (this.hooks.has(name)) throw new Error(`scene deletion hook "${name}" registered twice`);
    this.hooks.set(name, hook);
  }

  registerFollowUp(name: string, run: SceneDeletionFollowUp, pending: SceneDeletionFollowUpPending): void {
    if (this.followUps.has(name)) throw new Error(`scene deletion follow-up "${name}" registered twice`);
    this.followUps.set(name, { run, pending });
  }

  /** Set once, by the lib that runs jobs (libs/operations). */
  scheduleFollowUpsWith(scheduler: SceneDeletionFollowUpScheduler): void {
    if (this.scheduler) throw new Error('scene deletion follow-ups scheduled twice');
    this.scheduler = scheduler;
  }

  async run(tx: Tx, scene: DeletedScene, at: Date): Promise<void> {
    for (const hook of this.hooks.values()) await hook(tx, scene, at);
  }

  /** In the deleting transaction, after the hooks: whether any follow-up has work, so must be scheduled. */
  async followUpsPending(tx: Tx, scene: DeletedScene, at: Date): Promise<boolean> {
    for (const { pending } of this.followUps.values()) if (await pending(tx, scene, at)) return true;
    return false;
  }

  /** After the deletion committed: its follow-ups handed to the scheduler. Rejects when that failed. */
  async scheduleFollowUps(scene: DeletedScene): Promise<void> {
    if (!this.scheduler) throw new Error('no scheduler for the follow-ups in this process');
    await this.scheduler(scene);
  }

  async runFollowUps(tx: Tx, scene: DeletedScene, at: Date): Promise<void> {
    for (const { run } of this.followUps.values()) await run(tx, scene, at);
  }
}
