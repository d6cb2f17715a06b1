import { AppConfig, Clock, FleetSlots, Tx } from '@app/core';
import { GenerationBacklogs, LimitsService, OrganizationLimits } from '@app/tenancy';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AdmissionRepository, WaitingOperation, WaitingOrganization } from './admission.repository';
import { AdmissionSignal } from './admission-signal';
import { ProviderStarts } from './provider-starts';
import { SceneJobScheduler } from './scene-job-scheduler';

/** How often an idle worker looks anyway (a lost signal, a limit raised with the CLI, a pause ended). */
export const ADMISSION_POLL_MS = 1000;

/**
 * The order of up to `free` admissions across organizations, round-robin: each pick goes to the
 * organization served longest ago (never served first, then the one whose oldest operation waits
 * longest), among those with work waiting and fewer than their `maxConcurrentGenerations`
 * running. Returns one organization id per admission. Pure, so the rule is unit-tested alone;
 * within an organization the caller takes its operations in arrival order.
 */
export function planAdmissions(organizations: WaitingOrganization[], limits: Map<string, OrganizationLimits>, free: number): string[] {
  const state = organizations.map((o) => ({ ...o, picked: 0, turn: o.lastTurn ?? Number.NEGATIVE_INFINITY }));
  let turn = Math.max(0, ...organizations.map((o) => o.lastTurn ?? 0));
  const order: string[] = [];
  while (order.length < free) {
    const eligible = state.filter(
      (o) => o.picked < o.waiting && o.running + o.picked < (limits.get(o.organizationId)?.maxConcurrentGenerations ?? 0),
    );
    if (eligible.length === 0) break;
    const next = eligible.reduce((a, b) => (b.turn < a.turn || (b.turn === a.turn && oldest(b) < oldest(a)) ? b : a));
    next.picked++;
    next.turn = ++turn;
    order.push(next.organizationId);
  }
  return order;
}

const oldest = (o: WaitingOrganization) => o.oldestAt?.getTime() ?? Number.POSITIVE_INFINITY;

/**
 * Fair share across organizations on one BullMQ queue (docs/architecture.md, "Fair share").
 * Accepted operations wait in PostgreSQL (`admitted_at` null, `stage: queued`); a worker holding
 * the admission lock puts them on the BullMQ queue only as worker slots free up — at most as many
 * admitted-but-not-started operations as the fleet has slots — choosing round-robin between
 * organizations, within each organization's `maxConcurrentGenerations`, and (for generations, not
 * reverts) within GENERATION_PROVIDER_RATE and any provider pause. BullMQ's FIFO then holds only
 * what was admitted, so an organization's next operation starts within about two fleets' worth of
 * starts whatever the others have waiting. PostgreSQL holds the waiting lists: a Redis restart
 * loses nothing, and an admitted operation whose job is lost is enqueued again by the reconciler.
 */
@Injectable()
export class GenerationAdmission implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(GenerationAdmission.name);
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(
    private readonly admission: AdmissionRepository,
    private readonly limits: LimitsService,
    private readonly backlogs: GenerationBacklogs,
    private readonly starts: ProviderStarts,
    private readonly fleet: FleetSlots,
    private readonly jobs: SceneJobScheduler,
    private readonly signal: AdmissionSignal,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.signal.listen(() => this.wake());
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  /** Admits now (a local operation ended, a signal arrived) instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      let waitMs = ADMISSION_POLL_MS;
      try {
        const next = await this.round();
        // Another worker admits right now: look again soon, it may not have seen our news.
        waitMs = next === null ? 100 : Math.min(ADMISSION_POLL_MS, Math.max(10, next));
      } catch (e) {
        this.logger.warn(`admission round failed: ${(e as Error).message}`);
      }
      if (!this.woken && !this.stopping) await this.pause(waitMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /**
   * One round: as many admissions as the fleet has free slots for, committed, then enqueued.
   * Returns when to look again (ms): at once after admitting (more may fit), when the provider's
   * window frees, or at the poll; null when another worker holds the admission lock.
   */
  async round(): Promise<number | null> {
    const slots = Math.max(this.config.worker.concurrency, await this.fleet.total());
    const decided = await this.admission.inTurn((tx) => this.admit(tx, slots));
    if (decided === null) return null;
    for (const op of decided.admitted) {
      // A lost enqueue (Redis away) is made up by the reconciler: the operation is admitted.
      await this.jobs.enqueue(op).catch((e: Error) => this.logger.warn(`could not enqueue ${op.id} (${e.message}); the reconciler will`));
    }
    if (decided.waitMs > 0) return decided.waitMs;
    return decided.admitted.length > 0 ? 0 : ADMISSION_POLL_MS;
  }

  private async admit(tx: Tx, slots: number): Promise<{ admitted: WaitingOperation[]; waitMs: number }> {
    const none = { admitted: [], waitMs: 0 };
    const notStarted = await this.admission.admittedNotStarted(tx);
    const free = slots - notStarted;
    if (free <= 0) return none;
    // One row per organization with work waiting (tenancy's counts), never a scan of the waiting.
    const backlogs = await this.backlogs.withWaiting(tx);
    if (backlogs.length === 0) return none;
    const waitingIds = backlogs.map((b) => b.organizationId);
    const [turns, limits] = [await this.admission.turnsOf(tx, waitingIds), await this.limits.ofMany(waitingIds, tx)];
    const organizations: WaitingOrganization[] = backlogs.map((b) => ({
      organizationId: b.organizationId,
      waiting: b.waiting,
      running: b.running,
      lastTurn: turns.get(b.organizationId)?.lastTurn ?? null,
      oldestAt: turns.get(b.organizationId)?.oldestAt ?? null,
    }));
    const order = planAdmissions(organizations, limits, free);
    const counts = new Map<string, number>();
    for (const id of order) counts.set(id, (counts.get(id) ?? 0) + 1);
    const queues = new Map<string, WaitingOperation[]>();
    for (const [organizationId, count] of counts) queues.set(organizationId, await this.admission.oldestWaiting(tx, organizationId, count));
    // One organization's operation per pick, each organization's in arrival order.
    const planned = order.map((id) => queues.get(id)!.shift()).filter((o): o is WaitingOperation => o !== undefined);
    const { operations, waitMs } = await this.withinProviderRate(planned, notStarted);
    const ids = new Set(await this.admission.admit(tx, operations, this.clock.now()));
    const admitted = operations.filter((o) => ids.has(o.id));
    const perOrganization = new Map<string, number>();
    for (const op of admitted) perOrganization.set(op.organizationId, (perOrganization.get(op.organizationId) ?? 0) + 1);
    // In the same transaction: they stop waiting and hold their organization's slots from now.
    await this.backlogs.admitted(tx, perOrganization);
    return { admitted, waitMs };
  }

  /**
   * The longest prefix of `planned` the provider's rate allows now, counting the generations
   * admitted before that have not started yet (their starts are taken as they submit): reverts
   * need no start at the provider, a generation one. Keeping a prefix keeps the round-robin order.
   */
  private async withinProviderRate(
    planned: WaitingOperation[],
    notStarted: number,
  ): Promise<{ operations: WaitingOperation[]; waitMs: number }> {
    const needing = planned.filter((o) => o.revertTo === null).length;
    if (needing === 0) return { operations: planned, waitMs: 0 };
    const { available, waitMs } = await this.starts.available();
    const granted = Math.max(0, available - notStarted);
    if (granted >= needing) return { operations: planned, waitMs: 0 };
    let left = granted;
    const operations: WaitingOperation[] = [];
    for (const op of planned) {
      if (op.revertTo === null) {
        if (left === 0) break;
        left--;
      }
      operations.push(op);
    }
    return { operations, waitMs };
  }
}
