import { AppConfig, Clock, QueueService } from '@app/core';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OperationFailures } from './operation-error';
import { OperationOutcomes } from './operation-outcomes';
import { OperationsRepository } from './operations.repository';
import { SceneJobScheduler } from './scene-job-scheduler';
import { SCENES_QUEUE } from './operations.jobs';
import { OPERATIONS_CONFIG } from './operations.config';

const BATCH = 100;
/** Any fixed number: the advisory lock that lets one worker replica reconcile at a time. */
const RECONCILER_LOCK = 731_903_118;

/**
 * The guarantee behind "no accepted operation is lost". Every RECONCILE_INTERVAL_MS a worker
 * looks at operations that have been processing without progress for RECONCILE_GRACE_MS and
 * checks their job in Redis: a missing job (enqueue lost after commit, Redis restarted without
 * persistence) is enqueued again; a job that ended without recording its end is settled.
 * It runs on a timer, not as a BullMQ job, so it works even when Redis lost its schedules.
 */
@Injectable()
export class OperationsReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OperationsReconciler.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly operations: OperationsRepository,
    private readonly outcomes: OperationOutcomes,
    private readonly jobs: SceneJobScheduler,
    private readonly queues: QueueService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.reconcile()
        .catch((e: Error) => this.logger.warn(`reconcile failed: ${e.message}`))
        .finally(() => (this.running = null));
    }, this.config.slice(OPERATIONS_CONFIG).reconcile.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass; returns how many operations were enqueued again. */
  async reconcile(): Promise<number> {
    return (await this.operations.whileHoldingLock(RECONCILER_LOCK, () => this.pass())) ?? 0;
  }

  private async pass(): Promise<number> {
    const now = this.clock.now();
    const stale = await this.operations.stale(new Date(now.getTime() - this.config.slice(OPERATIONS_CONFIG).reconcile.graceMs), BATCH);
    const queue = this.queues.queue(SCENES_QUEUE);
    let requeued = 0;
    for (const op of stale) {
      const job = await queue.getJob(op.id);
      const state = job ? await job.getState() : 'missing';
      if (state === 'missing' || state === 'unknown') {
        await this.jobs.enqueue(op);
        await this.operations.touch(op.id, now);
        requeued++;
      } else if (state === 'completed' || state === 'failed') {
        // The job ended but its operation did not: settle it rather than leave it processing.
        const fresh = await this.operations.findById(op.id);
        if (fresh?.status === 'processing') {
          await this.operations.transaction((tx) => this.outcomes.failed(tx, op.id, OperationFailures.generationFailed(), now));
          this.logger.warn(`operation ${op.id}: its job ${state} without recording a result; marked failed`);
        } else if (fresh?.stage === 'cancelling') {
          // Its job followed the work after a cancel and ended without freeing the slot: free it.
          await this.operations.transaction((tx) => this.outcomes.slotReleased(tx, op.id, 0, now));
          this.logger.warn(`operation ${op.id}: its job ${state} while following a cancelled generation; its slot is free`);
        }
      }
    }
    if (requeued > 0) this.logger.log(`re-enqueued ${requeued} operation(s) that had no job`);
    return requeued;
  }
}
