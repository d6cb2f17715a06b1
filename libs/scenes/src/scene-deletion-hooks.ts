import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export interface DeletedScene {
  id: string;
  organizationId: string;
}

/** Runs inside the deleting transaction: what it writes commits with the deletion, or not at all. */
export type SceneDeletionHook = (tx: EntityManager, scene: DeletedScene, at: Date) => Promise<void>;

/**
 * The extension point of scene deletion. Libraries that depend on scenes (embed sessions revoke
 * theirs here) register a hook at module init; scenes itself knows none of them, which keeps
 * the dependency one-way.
 */
@Injectable()
export class SceneDeletionHooks {
  private readonly hooks = new Map<string, SceneDeletionHook>();

  register(name: string, hook: SceneDeletionHook): void {
    if (this.hooks.has(name)) throw new Error(`scene deletion hook "${name}" registered twice`);
    this.hooks.set(name, hook);
  }

  async run(tx: EntityManager, scene: DeletedScene, at: Date): Promise<void> {
    for (const hook of this.hooks.values()) await hook(tx, scene, at);
  }
}
