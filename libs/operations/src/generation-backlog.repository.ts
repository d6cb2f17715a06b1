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
 * apart from the admission round. Its cost does not grow with the waiting backlog: admitted
 * operations still processing are bounded by the organizations' concurrency limits (read over
 * their partial index, `operations_running_idx`), and the waiting ones are only probed for the
 * oldest of each organization with work waiting (`operations_waiting_idx`, one entry each); how
 * many wait per organization is tenancy's count (GenerationBacklogs).
 */
@Injectable()
export class GenerationBacklogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Admitted operations still processing (queued on BullMQ, running, at the provider), per organization and stage. */
  async admittedInProgress(): Promise<BacklogGroup[]> {
    // Aggregates: the names are the query's own, not an entity's columns.
    const { rows } = await rawQuery<{ organization_id: string; stage: OperationStage; n: number; oldest_at: Date }>(
      this.db,
      `SELECT organization_id, stage, count(*)::int AS n, min(created_at) AS oldest_at
         FROM operations WHERE status = 'processing' AND admitted_at IS NOT NULL
        GROUP BY organization_id, stage`,
    );
    return rows.map((r) => ({ organizationId: r.organization_id, stage: r.stage, admitted: true, count: r.n, oldestAt: r.oldest_at }));
  }

  /** The arrival of each named organization's oldest operation waiting for its turn (absent when none waits). */
  async oldestWaitingOf(organizationIds: string[]): Promise<Map<string, Date>> {
    if (organizationIds.length === 0) return new Map();
    const { rows } = await rawQuery<{ organization_id: string; oldest_at: Date }>(
      this.db,
      `SELECT o.organization_id, w.created_at AS oldest_at
         FROM (SELECT unnest($1::text[]) AS organization_id) o
         JOIN LATERAL (
           SELECT created_at FROM operations
            WHERE organization_id = o.organization_id AND status = 'processing' AND admitted_at IS NULL
            ORDER BY created_at, id LIMIT 1) w ON true`,
      [organizationIds],
    );
    return new Map(rows.map((r) => [r.organization_id, r.oldest_at]));
  }
}
