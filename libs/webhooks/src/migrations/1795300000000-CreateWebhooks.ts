import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed webhooks (libs/webhooks) and the embed-session end they report.
 *
 * - `webhook_endpoints`: an organization's receivers. The signing secret is stored encrypted
 *   (AES-256-GCM under WEBHOOK_SECRETS_KEY), not hashed: the worker must sign with it. During a
 *   rotation's overlap the previous secret signs too, until `previous_secret_expires_at`.
 * - `webhook_messages`: one row per event, written in the transaction of the state change that
 *   caused it (the outbox), its payload frozen then.
 * - `webhook_deliveries`: one row per message and subscribed endpoint, claimed by workers with
 *   SKIP LOCKED; `next_attempt_at` is both the retry schedule and the lease of a claimed row, so a
 *   killed worker's deliveries come due again. `attempts_log` keeps every attempt's outcome.
 * - `embed_sessions.end_reported_at`: when its `embed_session.ended` event was written, so that
 *   expiry (noticed by a maintenance job) is reported once.
 */
export class CreateWebhooks1795300000000 implements MigrationInterface {
  name = 'CreateWebhooks1795300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id),
        url text NOT NULL,
        -- A test organization's endpoint may target http://localhost:<port>; fixed at creation.
        allow_loopback boolean NOT NULL,
        events text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text CHECK (disabled_reason IN ('disabled_by_partner', 'failing')),
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_org ON webhook_endpoints (organization_id, id) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE webhook_messages (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id),
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        message_id text NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        attempts_log jsonb NOT NULL DEFAULT '[]',
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        PRIMARY KEY (endpoint_id, message_id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id)`);
    await q.query(`ALTER TABLE embed_sessions ADD COLUMN end_reported_at timestamptz`);
    // Sessions already over when this runs are not reported: their end predates the feature.
    await q.query(`UPDATE embed_sessions SET end_reported_at = now() WHERE revoked_at IS NOT NULL OR expires_at <= now()`);
    await q.query(`CREATE INDEX embed_sessions_unreported_expiry ON embed_sessions (expires_at) WHERE end_reported_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX embed_sessions_unreported_expiry`);
    await q.query(`ALTER TABLE embed_sessions DROP COLUMN end_reported_at`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_messages`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}
