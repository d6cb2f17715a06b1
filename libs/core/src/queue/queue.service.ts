import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { AppConfig } from '../config';
import { createRedis } from '../redis';
import { bullmq } from './bullmq';
import { JobDeclaration } from './job-declaration';

/** Defaults for every job: bounded retention so Redis does not grow without end. */
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
};

/** When BullMQ is loaded (QueueModule.forRoot). */
export const QUEUE_LOADING = Symbol('QUEUE_LOADING');

/** Producer side of the queues, used by any process that enqueues work. */
@Injectable()
export class QueueService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Queue');
  /** Made with the first queue: a process that never enqueues (the CLI) opens no connection. */
  private connection: Redis | null = null;
  private readonly queues = new Map<string, Queue>();

  private lastWarning = 0;

  constructor(
    private readonly config: AppConfig,
    @Inject(QUEUE_LOADING) private readonly loading: { loadAtBoot: boolean },
  ) {}

  /**
   * A server loads BullMQ now (about 0.2 s of CPU): otherwise the first request that enqueues (a
   * scene's deletion, an operation's poll) pays for it, on a process busy serving others.
   */
  onApplicationBootstrap(): void {
    if (this.loading.loadAtBoot) bullmq();
  }

  /** The producer of one queue (by its name, as declared with its jobs), made on first use. */
  queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      // Producers must fail fast when Redis is away (callers fall back to the reconciler);
      // BullMQ still needs a connection without a per-request retry cap for its own scripts.
      queue = new (bullmq().Queue)(name, {
        connection: (this.connection ??= createRedis(this.config, 'commands', 'queue-producer')),
        prefix: this.config.queuePrefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
        skipWaitingForReady: true,
      });
      // BullMQ re-emits every connection error; one line every 10 s is enough to see an outage.
      queue.on('error', (e) => {
        if (Date.now() - this.lastWarning < 10_000) return;
        this.lastWarning = Date.now();
        this.logger.warn(`queue connection error: ${e.message}`);
      });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Enqueues a declared job (`<lib>.jobs.ts`) with the payload its declaration names. */
  async add<P>(job: JobDeclaration<string, P>, data: P, options: JobsOptions = {}): Promise<void> {
    await this.queue(job.queue).add(job.name, data, options);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.connection?.disconnect();
  }
}
