import { AppConfig, Clock, inBatches, OnJob } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { OperationsRepository } from './operations.repository';
import { SceneJob } from './operations.jobs';
import { OPERATIONS_CONFIG } from './operations.config';

/**
 * Retention (docs/operations.md, "Data we keep"): a finished operation of a deleted scene is erased
 * OPERATION_RETENTION_DAYS (30) after it ended. Operations of live scenes are their scene's
 * history and stay with it. The purge marks a deleted scene's operations (ScenePurge), which is
 * how this job finds them; small batches with SKIP LOCKED keep each DELETE's locks short and let
 * replicas share the work.
 */
@Injectable()
export class OperationRetention {
  private readonly logger = new Logger(OperationRetention.name);

  constructor(
    private readonly operations: OperationsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @OnJob(SceneJob.PurgeOldOperations)
  async purgeOld(): Promise<{ operations: number }> {
    const before = new Date(this.clock.now().getTime() - this.config.slice(OPERATIONS_CONFIG).operationRetentionMs);
    const deleted = await inBatches((limit) => this.operations.deleteOfDeletedScenesEndedBefore(before, limit));
    if (deleted > 0) this.logger.log(`erased ${deleted} operation(s) of deleted scenes that ended before ${before.toISOString()}`);
    return { operations: deleted };
  }
}
