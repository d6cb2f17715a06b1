import { AppConfig, Clock, QueueService, RedisCircuit } from '@app/core';
import { GENERATION_CONFIG } from '@app/generation';
import { GenerationBacklogs } from '@app/tenancy';
import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';
import { SCENES_QUEUE, SceneJob } from './operations.jobs';

const JOB_FOR_KIND: Record<OperationEntity['kind'], typeof SceneJob.Generate | typeof SceneJob.Edit> = {
  'scene.create': SceneJob.Generate,
  'scene.edit': SceneJob.Edit,
};

/**
 * Puts admitted operations on the scenes queue, one job per operation (jobId = operation id):
 * GenerationAdmission as their turn comes, the reconciler when an admitted one lost its job.
 */
@Injectable()
export class SceneJobScheduler {
  private readonly logger = new Logger(SceneJobScheduler.name);
  private depth = { at: 0, waiting: 0 };
  private readonly waiting = new LRUCache<string, { at: number; waiting: number }>({ max: 10_000 });

  constructor(
    private readonly queues: QueueService,
    private readonly operations: OperationsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly circuit: RedisCircuit,
    private readonly backlogs: GenerationBacklogs,
  ) {}

  /** Throws when Redis is unreachable or its circuit open; the caller decides whether that matters. */
  async enqueue(op: Pick<OperationEntity, 'id' | 'kind'>): Promise<void> {
    await this.circuit.run(() =>
      this.queues.add(
        JOB_FOR_KIND[op.kind],
        { operationId: op.id },
        {
          jobId: op.id,
          attempts: this.config.slice(GENERATION_CONFIG).attempts,
          backoff: { type: 'exponential', delay: this.config.slice(GENERATION_CONFIG).backoffMs },
        },
      ),
    );
    await this.operations.markEnqueued([op.id], this.clock.now());
  }

  /**
   * Has a deleted scene's follow-ups run on a worker (ScenePurge.finishDeletion). Throws when Redis
   * is unreachable or its circuit open: the purge runs them then. Once per scene: the job's id is.
   */
  async finishDeletion(sceneId: string): Promise<void> {
    await this.circuit.run(() => this.queues.add(SceneJob.FinishDeletion, { sceneId }, { jobId: `finish-deletion-${sceneId}` }));
  }

  /**
   * Runs an operation's job now if it is waiting for its next poll (a cancel wants the provider
   * job cancelled without waiting out the poll interval). Best effort: the poll comes anyway.
   */
  async wake(operationId: string): Promise<void> {
    try {
      await this.circuit.run(async () => {
        const job = await this.queues.queue(SCENES_QUEUE).getJob(operationId);
        if (job && (await job.isDelayed())) await job.promote();
      });
    } catch (e) {
      this.logger.warn(`could not wake the job of ${operationId} (${(e as Error).message}); its next poll will see it`);
    }
  }

  /**
   * Seconds a poller should wait: 1 when nothing is ahead, up to 10 as work piles up — what sits
   * on the BullMQ queue plus the organization's own operations waiting for their turn (another
   * organization's flood does not slow this one's polls: admission serves it in turn). Each figure
   * is read at most once a second per process.
   */
  async suggestedPollDelaySeconds(organizationId: string): Promise<number> {
    const now = Date.now();
    if (now - this.depth.at > 1000) {
      this.depth.at = now;
      try {
        const counts = await this.circuit.run(() => this.queues.queue(SCENES_QUEUE).getJobCounts('waiting', 'prioritized', 'active'));
        this.depth.waiting = Object.values(counts).reduce((a, b) => a + b, 0);
      } catch {
        this.depth.waiting = 0;
      }
    }
    let own = this.waiting.get(organizationId);
    if (!own || now - own.at > 1000) {
      own = { at: now, waiting: own?.waiting ?? 0 };
      this.waiting.set(organizationId, own);
      own.waiting = await this.backlogs
        .of(organizationId)
        .then((b) => b.waiting)
        .catch(() => 0);
    }
    const perWorkerRound = Math.max(1, this.config.worker.concurrency);
    return Math.min(10, Math.max(1, 1 + Math.floor((this.depth.waiting + own.waiting) / (perWorkerRound * 2))));
  }
}
