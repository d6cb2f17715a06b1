import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenancy (docs/architecture.md "Fair share"):
 *
 * - `organization_limits` (libs/tenancy): what operators set with `cli org limits`; no row means
 *   the defaults (10 at once, unlimited per day).
 * - `usage_days` (libs/tenancy): exact counters per organization and UTC day, each written in the
 *   transaction of the change it counts; `generations_started` is also the day's quota counter.
 * - `operations.admitted_at` (libs/scenes): null while an operation waits for its organization's
 *   turn (`stage: queued`); set when admission lets it on the BullMQ queue. Operations already
 *   processing are admitted as they are: they have their jobs.
 * - `operations.started_at` (libs/scenes): when a worker first started it (its wait to start, for
 *   operators and the tenancy benchmark).
 * - `admission_turns` (libs/scenes): when each organization was last served, as a sequence number,
 *   so waiting organizations are served round-robin.
 */
export class AddTenancy1795345000000 implements MigrationInterface {
  name = 'AddTenancy1795345000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_limits (
        organization_id            text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        max_concurrent_generations integer NOT NULL CHECK (max_concurrent_generations BETWEEN 1 AND 10000),
        generations_per_day        integer CHECK (generations_per_day BETWEEN 0 AND 100000000),
        updated_at                 timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE usage_days (
        organization_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        day                   date NOT NULL,
        generations_started   integer NOT NULL DEFAULT 0,
        edits_started         integer NOT NULL DEFAULT 0,
        generations_succeeded integer NOT NULL DEFAULT 0,
        generations_failed    integer NOT NULL DEFAULT 0,
        generations_cancelled integer NOT NULL DEFAULT 0,
        provider_cost_units   numeric NOT NULL DEFAULT 0,
        stored_bytes          bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, day)
      )`);
    // The busiest organizations of a day, for /metrics.
    await q.query(`CREATE INDEX usage_days_day_idx ON usage_days (day)`);
    await q.query(`ALTER TABLE operations ADD COLUMN admitted_at timestamptz, ADD COLUMN started_at timestamptz`);
    await q.query(`UPDATE operations SET admitted_at = coalesce(enqueued_at, created_at) WHERE status = 'processing'`);
    // Admission reads the waiting operations by organization, oldest first, and counts the
    // admitted ones still running per organization.
    await q.query(
      `CREATE INDEX operations_waiting_idx ON operations (organization_id, created_at, id) WHERE status = 'processing' AND admitted_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX operations_running_idx ON operations (organization_id) WHERE status = 'processing' AND admitted_at IS NOT NULL`,
    );
    await q.query(`CREATE SEQUENCE admission_turn_seq`);
    await q.query(`
      CREATE TABLE admission_turns (
        organization_id text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        last_turn       bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE admission_turns`);
    await q.query(`DROP SEQUENCE admission_turn_seq`);
    await q.query(`DROP INDEX operations_running_idx`);
    await q.query(`DROP INDEX operations_waiting_idx`);
    await q.query(`ALTER TABLE operations DROP COLUMN admitted_at, DROP COLUMN started_at`);
    await q.query(`DROP TABLE usage_days`);
    await q.query(`DROP TABLE organization_limits`);
  }
}
