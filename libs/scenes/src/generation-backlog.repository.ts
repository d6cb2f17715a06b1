import { rawQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OperationStage } from './operation.entity';

/** Processing operations of one organization in one stage, admitted or not. */
export interface BacklogGroup {
  organizationId: string;
  stage: OperationStage;
  /** Admitted onto the queue (its organization's turn came); false while it waits for it. */
  admitted: boolean;
  count: number;
  /** The oldest one's acceptance. */
  oldestAt: Date;
}

/**
 * What /metrics reports of the generation backlog (GenerationBacklogMetrics), read at scrape time
 * apart from the admission round: one grouped read of the operations still processing, over their
 * partial index. Its cost grows with the generations in flight (tens of milliseconds for a hundred
 * thousand), once per scrape and worker, not per tick.
 */
@Injectable()
export class GenerationBacklogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async inProgress(): Promise<BacklogGroup[]> {
    // Aggregates: the names are the query's own, not an entity's columns.
    const { rows } = await rawQuery<{ organization_id: string; stage: OperationStage; admitted: boolean; n: number; oldest_at: Date }>(
      this.db,
      `SELECT organization_id, stage, admitted_at IS NOT NULL AS admitted, count(*)::int AS n, min(created_at) AS oldest_at
         FROM operations WHERE status = 'processing'
        GROUP BY organization_id, stage, admitted_at IS NOT NULL`,
    );
    return rows.map((r) => ({
      organizationId: r.organization_id,
      stage: r.stage,
      admitted: r.admitted,
      count: r.n,
      oldestAt: r.oldest_at,
    }));
  }
}
