import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhook_deliveries.parked`: a pending delivery whose endpoint is disabled (by its partner or
 * for failing) waits parked, out of the index the dispatcher claims from. Before, every claim
 * (twice a second per worker) and the oldest-due gauge stepped over each pending delivery of every
 * disabled endpoint, up to 30 days of one partner's events: a cost that grew with what waited,
 * not with what was sent. The endpoint's own `enabled` stays the rule (the claim still joins it);
 * `parked` keeps the index to what can be sent. Deliveries of endpoints disabled today are parked
 * here.
 */
export class ParkDisabledEndpointsDeliveries1795381000000 implements MigrationInterface {
  name = 'ParkDisabledEndpointsDeliveries1795381000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN parked boolean NOT NULL DEFAULT false`);
    await q.query(`
      UPDATE webhook_deliveries d SET parked = true
        FROM webhook_endpoints e
       WHERE e.id = d.endpoint_id AND d.status = 'pending' AND NOT (e.enabled AND e.deleted_at IS NULL)`);
    await q.query(
      `CREATE INDEX webhook_deliveries_sendable ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND NOT parked`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_sendable`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN parked`);
  }
}
