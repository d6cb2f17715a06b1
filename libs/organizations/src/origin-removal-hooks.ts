import { Injectable } from '@nestjs/common';
import { Tx } from '@app/core';

export interface RemovedOrigin {
  organizationId: string;
  origin: string;
}

/** Runs inside the removing transaction: what it writes commits with the removal, or not at all. */
export type OriginRemovalHook = (tx: Tx, removed: RemovedOrigin, at: Date) => Promise<void>;

/**
 * The extension point of removing an approved origin. Libraries that depend on organizations
 * (embed sessions end those bound to the origin) register a hook at module init; organizations
 * knows none of them, which keeps the dependency one-way. A process that removes origins must
 * load those libraries' modules (the CLI loads embed sessions).
 */
@Injectable()
export class OriginRemovalHooks {
  private readonly hooks = new Map<string, OriginRemovalHook>();

  register(name: string, hook: OriginRemovalHook): void {
    if (this.hooks.has(name)) throw new Error(`origin removal hook "${name}" registered twice`);
    this.hooks.set(name, hook);
  }

  async run(tx: Tx, removed: RemovedOrigin, at: Date): Promise<void> {
    for (const hook of this.hooks.values()) await hook(tx, removed, at);
  }
}
