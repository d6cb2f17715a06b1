import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `provider_erasures` (libs/scenes): deletion reaches the generation provider. When the purge
 * erases a deleted scene, each of its operations that ran a job at a provider gets a row here, in
 * the purge's transaction; the same job then deletes the provider's copies (Marble's worlds,
 * Meshy's tasks, a protocol-v2 provider's generation), retrying with a growing pause, and records
 * what it did. Scenes purged before this release get their rows now, from the jobs their
 * operations still name.
 *
 * Compatible with the release before: a new table that the old code never reads.
 */
export class CreateProviderErasures1795370000000 implements MigrationInterface {
  name = 'CreateProviderErasures1795370000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE provider_erasures (
        operation_id text PRIMARY KEY,
        organization_id text NOT NULL,
        scene_id text NOT NULL,
        generator text NOT NULL,
        provider_job jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_error text,
        objects jsonb,
        created_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX provider_erasures_due_idx ON provider_erasures (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`
      INSERT INTO provider_erasures (operation_id, organization_id, scene_id, generator, provider_job, status, attempts, next_attempt_at, created_at)
      SELECT o.id, o.organization_id, o.scene_id, o.generator, o.provider_job, 'pending', 0, now(), now()
        FROM operations o JOIN scenes s ON s.id = o.scene_id
       WHERE s.purged_at IS NOT NULL AND o.provider_job IS NOT NULL AND o.generator IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE provider_erasures`);
  }
}
