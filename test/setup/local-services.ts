/** A PostgreSQL or Redis that global-setup found or started (scripts/local-services.js). */
export interface LocalService {
  url: string;
  source: string;
  stop(): Promise<void>;
}

interface Registry {
  started: boolean;
  /** Projects whose global setup ran and whose teardown has not: the last teardown stops the services. */
  users: number;
  services: LocalService[];
  stopAll(): Promise<void>;
}

const KEY = Symbol.for('scene-studio.test.local-services');

/**
 * Shared by global-setup and global-teardown, which jest may load as separate module instances
 * (once per project) in one process: hence globalThis rather than a module variable.
 */
export function localServices(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry | undefined>;
  g[KEY] ??= {
    started: false,
    users: 0,
    services: [],
    async stopAll() {
      // Started Redis first, then PostgreSQL: stop in reverse.
      for (const s of this.services.splice(0).reverse()) await s.stop();
    },
  };
  return g[KEY];
}
