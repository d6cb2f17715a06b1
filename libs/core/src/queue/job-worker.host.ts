import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config';
import { isInfrastructureError } from '../errors';
import { scrubSecrets } from '../logging';
import { MetricsService } from '../metrics';
import { createRedis } from '../redis';
import { bullmq } from './bullmq';
import { FLEET_REFRESH_MS, FleetSlots } from './fleet-slots';
import { JOB_HANDLER } from './job-handler.decorator';
import { JobRegistry } from './job-declaration';
import { jobNote } from './job-notes';
import { QueueService } from './queue.service';

type Handler = (data: unknown, job: Job) => Promise<unknown>;

/** Waits between tries while a dependency is down: 1 s, doubling, at most 15 s. */
export const OUTAGE_RETRY = { firstDelayMs: 1000, maxDelayMs: 15_000 } as const;

export function outageDelayMs(consecutive: number): number {
  return Math.min(OUTAGE_RETRY.maxDelayMs, OUTAGE_RETRY.firstDelayMs * 2 ** Math.min(consecutive, 16));
}

/**
 * Thrown by a handler whose work is not done but has nothing to do for a while (a provider job
 * still running): the job goes back to the delayed set and runs again after `delayMs`, holding
 * no worker slot meanwhile and spending no attempt. The handler must have persisted whatever it
 * needs to continue, since the next run may be in another process.
 */
export class RescheduleJob extends Error {
  override name = 'RescheduleJob';

  constructor(readonly delayMs: number) {
    super(`reschedule in ${delayMs} ms`);
  }
}

/** The worker's assembled registry (`JobWorkerModule.forRoot`). */
export const JOB_REGISTRY = Symbol('JOB_REGISTRY');

export class JobHandlerRegistryError extends Error {
  override name = 'JobHandlerRegistryError';
}

/** Pure check, unit-tested: every declared job name has exactly one handler. */
export function checkHandlers(declared: readonly string[], found: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const name of found) counts.set(name, (counts.get(name) ?? 0) + 1);
  const missing = declared.filter((n) => !counts.has(n));
  const duplicated = [...counts].filter(([, c]) => c > 1).map(([n]) => n);
  const unknown = [...counts.keys()].filter((n) => !declared.includes(n));
  const problems = [
    ...missing.map((n) => `job "${n}" has no handler`),
    ...duplicated.map((n) => `job "${n}" has more than one handler`),
    ...unknown.map((n) => `handler for undeclared job "${n}"`),
  ];
  if (problems.length > 0) throw new JobHandlerRegistryError(`Refusing to start: ${problems.join('; ')}`);
}

/**
 * Hosts the BullMQ workers of the worker process. Handlers are `@OnJob` service methods found
 * at boot. On shutdown the workers stop taking jobs and running ones get a bounded time to finish.
 *
 * A handler that fails because PostgreSQL or Redis is unavailable (`isInfrastructureError`) has
 * not failed its job: the job goes back to the delayed set without spending an attempt and is
 * tried again after 1 s, 2 s, 4 s … at most 15 s, for as long as the outage lasts. Attempts are
 * for failures of the work itself; an outage of minutes must not fail what partners were promised.
 */
@Injectable()
export class JobWorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private readonly handlers = new Map<string, Handler>();
  private readonly workers: Worker[] = [];
  /** BullMQ leaves connections it was given open; they are closed with the workers. */
  private readonly connections: Redis[] = [];
  private readonly jobDuration;
  /** Consecutive outage deferrals per job id, for the backoff (a worker restart starts over at 1 s). */
  private readonly deferrals = new LRUCache<string, number>({ max: 10_000 });
  private readonly workerId = randomUUID();
  private fleetTimer: NodeJS.Timeout | null = null;
  /** Sweeps that run on a schedule: their ordinary runs are logged at debug, not info. */
  private readonly scheduled: ReadonlySet<string>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly config: AppConfig,
    private readonly queues: QueueService,
    private readonly fleet: FleetSlots,
    metrics: MetricsService,
    @Inject(JOB_REGISTRY) private readonly registry: JobRegistry,
  ) {
    this.jobDuration = metrics.histogram(
      'job_duration_seconds',
      'Job processing time by queue, job name and outcome',
      // `name`, not `job`: Prometheus gives every target a `job` label and renames a metric's own.
      ['queue', 'name', 'outcome'] as const,
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    );
    this.scheduled = new Set(registry.schedules().map((j) => j.name));
    const producers = this.queues;
    const queueNames = registry.queues();
    // Collected on each scrape; registered once, nothing to keep.
    metrics.gauge('queue_jobs', 'Jobs per queue and state', ['queue', 'state'] as const, async function () {
      this.reset();
      for (const name of queueNames) {
        const counts = await producers.queue(name).getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
      }
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.discoverHandlers();
    for (const schedule of this.registry.schedules()) {
      // Upsert by a stable id: every replica runs this, Redis keeps one schedule.
      await this.queues
        .queue(schedule.queue)
        .upsertJobScheduler(schedule.name, { every: schedule.everyMs }, { name: schedule.name, data: {} });
    }
    for (const queueName of this.registry.queues()) {
      const connection = createRedis(this.config, 'bullmq', `worker-${queueName}`);
      this.connections.push(connection);
      const worker = new (bullmq().Worker)(queueName, (job, token) => this.process(queueName, job, token), {
        connection,
        prefix: this.config.queuePrefix,
        concurrency: this.config.worker.concurrency,
        lockDuration: this.config.worker.lockDurationMs,
        stalledInterval: this.config.worker.stalledIntervalMs,
        maxStalledCount: 2,
      });
      worker.on('error', (e) => this.logger.warn(`worker ${queueName}: ${e.message}`));
      this.workers.push(worker);
    }
    this.logger.log(`processing ${this.registry.queues().join(', ')} with concurrency ${this.config.worker.concurrency}`);
    // The fleet's size, for admission: this worker's scene slots, refreshed while it runs.
    const register = () =>
      this.fleet
        .register(this.workerId, this.config.worker.concurrency)
        .catch((e: Error) => this.logger.warn(`cannot record this worker's slots: ${e.message}`));
    await register();
    this.fleetTimer = setInterval(() => void register(), FLEET_REFRESH_MS);
    this.fleetTimer.unref();
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.logger.log(`shutting down (${signal ?? 'close'}): no new jobs, waiting for running ones`);
    if (this.fleetTimer) clearInterval(this.fleetTimer);
    await this.fleet.unregister(this.workerId).catch(() => undefined);
    const timeoutMs = this.config.shutdownTimeoutMs;
    await Promise.all(
      this.workers.map(async (w) => {
        let timer: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          w.close().then(() => true),
          new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
        ]);
        clearTimeout(timer);
        if (!finished) {
          // Their locks expire and another replica picks them up as stalled jobs.
          this.logger.warn(`jobs still running after ${timeoutMs} ms on ${w.name}; leaving them to be retried`);
          await w.close(true);
        }
      }),
    );
    for (const c of this.connections) c.disconnect();
  }

  private discoverHandlers(): void {
    const found: string[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance) as object)) {
        const name = this.discovery.getMetadataByDecorator(JOB_HANDLER, wrapper, method);
        if (!name) continue;
        found.push(name);
        this.handlers.set(name, (instance[method] as Handler).bind(instance));
      }
    }
    checkHandlers(this.registry.names(), found);
  }

  private async process(queue: string, job: Job, token: string | undefined): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) {
      // A job left by an older or newer release: skipping beats crashing every replica.
      this.logger.warn(`skipping job ${job.id} with unknown name "${job.name}" on ${queue}`);
      return { skipped: true };
    }
    const end = this.jobDuration.startTimer({ queue, name: job.name });
    const startedAt = performance.now();
    try {
      const result = await handler(job.data, job);
      this.deferrals.delete(job.id!);
      end({ outcome: 'completed' });
      this.logEnd(queue, job, startedAt, 'completed');
      return result;
    } catch (e) {
      if (e instanceof RescheduleJob && token) {
        this.deferrals.delete(job.id!);
        await job.moveToDelayed(Date.now() + e.delayMs, token);
        end({ outcome: 'rescheduled' });
        this.logEnd(queue, job, startedAt, 'rescheduled', { nextRunInMs: e.delayMs });
        throw new (bullmq().DelayedError)();
      }
      if (isInfrastructureError(e) && token && (await this.defer(job, token, e as Error))) {
        end({ outcome: 'deferred' });
        throw new (bullmq().DelayedError)();
      }
      this.deferrals.delete(job.id!);
      end({ outcome: 'failed' });
      this.logEnd(queue, job, startedAt, 'failed', { err: e });
      throw e;
    }
  }

  /**
   * One line per run of a job: its name and id, the organization it worked for (when its handler
   * named it: noteJob), the attempt, how long it took and how it ended. A failure is a warning
   * (BullMQ retries it unless it was the last attempt); a generation waiting on its provider
   * (rescheduled, every few seconds each) and the scheduled sweeps' ordinary runs are at debug, so
   * an idle fleet writes nothing. A deferral writes its own warning (defer).
   */
  private logEnd(
    queue: string,
    job: Job,
    startedAt: number,
    outcome: 'completed' | 'rescheduled' | 'failed',
    extra: { err?: unknown; nextRunInMs?: number } = {},
  ): void {
    const durationMs = Math.round(performance.now() - startedAt);
    const organizationId = jobNote(job)?.organizationId;
    const attempt = job.attemptsMade + 1;
    const fields = { job: job.name, jobId: job.id, queue, organizationId, attempt, durationMs, outcome, ...extra };
    const line = `${job.name} ${job.id}${organizationId ? ` (${organizationId})` : ''} ${outcome} in ${durationMs} ms${attempt > 1 ? `, attempt ${attempt}` : ''}`;
    if (outcome === 'failed') this.logger.warn(fields, `${line}: ${scrubSecrets((extra.err as Error)?.message ?? 'failed')}`);
    else if (outcome === 'rescheduled' || this.scheduled.has(job.name)) this.logger.debug(fields, line);
    else this.logger.log(fields, line);
  }

  /** Puts the job back for later without spending an attempt; false when even that is impossible. */
  private async defer(job: Job, token: string, cause: Error): Promise<boolean> {
    const consecutive = this.deferrals.get(job.id!) ?? 0;
    const delayMs = outageDelayMs(consecutive);
    try {
      await job.moveToDelayed(Date.now() + delayMs, token);
    } catch {
      // Redis is away too: let BullMQ retry it as a failed attempt (or the stalled-job check).
      return false;
    }
    this.deferrals.set(job.id!, consecutive + 1);
    this.logger.warn(`job ${job.id} (${job.name}) waits for a dependency (${cause.message}); next try in ${delayMs} ms, no attempt spent`);
    return true;
  }
}
