/**
 * How a job is declared. Each lib declares its own jobs in `<lib>.jobs.ts` (name, queue, payload
 * type, and for maintenance its schedule); the worker assembles them into one `JobRegistry`. Job
 * names are string literals, never derived from class names, so a rename cannot orphan jobs
 * already waiting in Redis. Payloads carry ids only; handlers load current state from the database.
 */

/** The queue of periodic sweeps, shared by every lib's maintenance jobs. */
export const MAINTENANCE_QUEUE = 'maintenance';

/** One job: `P` is its payload, carried by the type only (`queue.add` and `@OnJob` check it). */
export interface JobDeclaration<N extends string = string, P = unknown> {
  readonly name: N;
  readonly queue: string;
  /** Repeatable: every worker upserts its schedule at boot (one per name in Redis). */
  readonly everyMs?: number;
  /** Never set: the payload's type, for the compiler. */
  readonly payload?: P;
}

/** The payload of a declared job. */
export type JobData<J> = J extends JobDeclaration<string, infer P> ? P : never;

/** Nothing: the payload of a scheduled sweep. */
export type NoPayload = Record<string, never>;

/**
 * Declares a job: `declareJob<{ operationId: string }>()('scene.generate', 'scenes')`. Curried so
 * the payload is named and the name is inferred as its literal.
 */
export function declareJob<P = NoPayload>() {
  return <N extends string>(name: N, queue: string, options: { everyMs?: number } = {}): JobDeclaration<N, P> => ({
    name,
    queue,
    ...(options.everyMs === undefined ? {} : { everyMs: options.everyMs }),
  });
}

/** A registry's entries must be declared: the worker refuses names declared twice. */
export class JobRegistry {
  private readonly byName = new Map<string, JobDeclaration>();

  private constructor(lists: ReadonlyArray<readonly JobDeclaration[]>) {
    for (const job of lists.flat()) {
      if (this.byName.has(job.name)) throw new Error(`job "${job.name}" is declared twice`);
      this.byName.set(job.name, job);
    }
  }

  /** Every lib's jobs (`<lib>.jobs.ts`), as the worker assembles them. */
  static of(...lists: ReadonlyArray<readonly JobDeclaration[]>): JobRegistry {
    return new JobRegistry(lists);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The queues the jobs use, each once. */
  queues(): string[] {
    return [...new Set([...this.byName.values()].map((j) => j.queue))];
  }

  /** The repeatable jobs. */
  schedules(): Array<JobDeclaration & { everyMs: number }> {
    return [...this.byName.values()].filter((j): j is JobDeclaration & { everyMs: number } => j.everyMs !== undefined);
  }
}
