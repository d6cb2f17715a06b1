import { AppConfig, Clock, JobName, QueueName, QueueService, RedisCircuit } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';

const JOB_FOR_KIND: Record<OperationEntity['kind'], JobName.SceneGenerate | JobName.SceneEdit> = {
  'scene.create': JobName.SceneGenerate,
  'scene.edit': JobName.SceneEdit,
};

/** Puts operations on the scenes queue, one job per operation (jobId = operation id). */
@Injectable()
export class SceneJobs {
  private readonly logger = new Logger(SceneJobs.name);
  private depth = { at: 0, waiting: 0 };

  constructor(
    private readonly queues: QueueService,
    private readonly operations: OperationsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly circuit: RedisCircuit,
  ) {}

  /** Throws when Redis is unreachable or its circuit open; the caller decides whether that matters. */
  async enqueue(op: Pick<OperationEntity, 'id' | 'kind'>): Promise<void> {
    await this.circuit.run(() =>
      this.queues.add(
        { name: JOB_FOR_KIND[op.kind], data: { operationId: op.id } },
        {
          jobId: op.id,
          attempts: this.config.generation.attempts,
          backoff: { type: 'exponential', delay: this.config.generation.backoffMs },
        },
      ),
    );
    await this.operations.markEnqueued([op.id], this.clock.now());
  }

  /**
   * Enqueues after the creating transaction committed, without making the partner wait for Redis:
   * if this fails (Redis down, process killed) the reconciler enqueues the operation later.
   */
  enqueueSoon(op: Pick<OperationEntity, 'id' | 'kind'>): void {
    this.enqueue(op).catch((e: Error) => this.logger.warn(`could not enqueue ${op.id} now (${e.message}); the reconciler will`));
  }

  /**
   * Runs an operation's job now if it is waiting for its next poll (a cancel wants the provider
   * job cancelled without waiting out the poll interval). Best effort: the poll comes anyway.
   */
  async wake(operationId: string): Promise<void> {
    try {
      await this.circuit.run(async () => {
        const job = await this.queues.queue(QueueName.Scenes).getJob(operationId);
        if (job && (await job.isDelayed())) await job.promote();
      });
    } catch (e) {
      this.logger.warn(`could not wake the job of ${operationId} (${(e as Error).message}); its next poll will see it`);
    }
  }

  /** Seconds a poller should wait: 1 when the queue is empty, up to 10 as it fills. */
  async suggestedPollDelaySeconds(): Promise<number> {
    const now = Date.now();
    if (now - this.depth.at > 1000) {
      this.depth.at = now;
      try {
        const counts = await this.circuit.run(() => this.queues.queue(QueueName.Scenes).getJobCounts('waiting', 'prioritized', 'active'));
        this.depth.waiting = Object.values(counts).reduce((a, b) => a + b, 0);
      } catch {
        this.depth.waiting = 0;
      }
    }
    const perWorkerRound = Math.max(1, this.config.worker.concurrency);
    return Math.min(10, Math.max(1, 1 + Math.floor(this.depth.waiting / (perWorkerRound * 2))));
  }
}
