import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cancelled or deleted generation keeps its organization's slot until its work has really ended
 * (docs/architecture.md, "Fair share"): `operations.stage` may be `cancelling` on an operation
 * that has ended for its partner (`failed`, `cancelled` or its scene deleted) while its world is
 * still being made at the provider or in a worker; the worker sets it back to null, and frees the
 * slot, once the provider reports the end (its cost recorded then). The index finds those the
 * reconciler must look after.
 */
export class HoldSlotsUntilWorkEnds1795365000000 implements MigrationInterface {
  name = 'HoldSlotsUntilWorkEnds1795365000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE operations DROP CONSTRAINT operations_stage_check,
        ADD CONSTRAINT operations_stage_check CHECK (stage IN ('queued', 'generating', 'downloading', 'storing', 'cancelling'))`);
    await q.query(`CREATE INDEX operations_cancelling_idx ON operations (updated_at) WHERE stage = 'cancelling'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX operations_cancelling_idx`);
    await q.query(`UPDATE operations SET stage = NULL WHERE stage = 'cancelling'`);
    await q.query(`
      ALTER TABLE operations DROP CONSTRAINT operations_stage_check,
        ADD CONSTRAINT operations_stage_check CHECK (stage IN ('queued', 'generating', 'downloading', 'storing'))`);
  }
}
