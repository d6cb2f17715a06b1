import { rawQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookDisabledReason } from './webhook-endpoint.entity';

/** Live endpoints with the same health, counted. */
export interface EndpointHealthGroup {
  enabled: boolean;
  disabledReason: WebhookDisabledReason | null;
  /** Its last attempts failed (`failing_since` set): disabled once that lasts WEBHOOK_DISABLE_AFTER_SECONDS. */
  failing: boolean;
  count: number;
}

/**
 * What /metrics reports of webhook delivery (WebhookMetrics), read at scrape time: endpoints by
 * health, and the oldest delivery that is due and not yet claimed. Both are cheap at any size the
 * limits allow: the endpoints are at most 20 per organization, and the due deliveries are read
 * through the index the dispatcher claims them by, stopping at the first.
 */
@Injectable()
export class WebhookHealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async endpointHealth(): Promise<EndpointHealthGroup[]> {
    // Aggregates: the names are the query's own, not an entity's columns.
    const { rows } = await rawQuery<{ enabled: boolean; disabled_reason: WebhookDisabledReason | null; failing: boolean; n: number }>(
      this.db,
      `SELECT enabled, disabled_reason, failing_since IS NOT NULL AS failing, count(*)::int AS n
         FROM webhook_endpoints WHERE deleted_at IS NULL
        GROUP BY enabled, disabled_reason, failing_since IS NOT NULL`,
    );
    return rows.map((r) => ({ enabled: r.enabled, disabledReason: r.disabled_reason, failing: r.failing, count: r.n }));
  }

  /** When the oldest delivery to an enabled endpoint fell due, among those no worker holds; null when none is due. */
  async oldestDue(now: Date): Promise<Date | null> {
    // As WebhooksRepository.claimDue finds them: a claimed delivery's due time is its lease's end.
    const { rows } = await rawQuery<{ next_attempt_at: Date }>(
      this.db,
      `SELECT d.next_attempt_at FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled AND e.deleted_at IS NULL
        WHERE d.status = 'pending' AND NOT d.parked AND d.next_attempt_at <= $1
        ORDER BY d.next_attempt_at
        LIMIT 1`,
      [now],
    );
    return rows[0]?.next_attempt_at ?? null;
  }
}
