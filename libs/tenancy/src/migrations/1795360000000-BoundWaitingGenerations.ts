import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bounded backlogs, and admission whose cost does not grow with them (docs/architecture.md,
 * "Fair share"):
 *
 * - `organization_backlogs` (libs/tenancy): per organization, its generations (creations and
 *   edits) waiting for their turn and its admitted ones still holding a slot, kept exactly in the
 *   transaction of every change (acceptance, admission, every end), so an admission round reads
 *   one row per organization with work waiting instead of grouping every waiting operation.
 *   `cancelling`: those of the running ones cancelled (or their scene deleted) after a worker
 *   started them, whose work goes on and keeps the slot until it ends (none yet: no release
 *   before this one holds slots).
 *   Counted here from the operations as they are; `operations` is locked against writes meanwhile,
 *   so no change slips between the count and the commit.
 * - `organization_limits.max_waiting_generations`: the cap on the waiting ones (`cli org limits
 *   --max-waiting-generations`); the rows that exist get the default (1000), as every organization
 *   without a row has it.
 *
 * Not for a release running beside the one before: its processes would not keep the counts.
 */
export class BoundWaitingGenerations1795360000000 implements MigrationInterface {
  name = 'BoundWaitingGenerations1795360000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_backlogs (
        organization_id text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        waiting         integer NOT NULL DEFAULT 0 CHECK (waiting >= 0),
        running         integer NOT NULL DEFAULT 0 CHECK (running >= 0),
        cancelling      integer NOT NULL DEFAULT 0 CHECK (cancelling >= 0 AND cancelling <= running)
      )`);
    await q.query(`LOCK TABLE operations IN SHARE MODE`);
    await q.query(`
      INSERT INTO organization_backlogs (organization_id, waiting, running)
      SELECT organization_id, count(*) FILTER (WHERE admitted_at IS NULL), count(*) FILTER (WHERE admitted_at IS NOT NULL)
        FROM operations WHERE status = 'processing' GROUP BY organization_id`);
    await q.query(`
      ALTER TABLE organization_limits
        ADD COLUMN max_waiting_generations integer NOT NULL DEFAULT 1000 CHECK (max_waiting_generations BETWEEN 1 AND 1000000)`);
    // The code writes every limit; the default above was for the rows already there.
    await q.query(`ALTER TABLE organization_limits ALTER COLUMN max_waiting_generations DROP DEFAULT`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organization_limits DROP COLUMN max_waiting_generations`);
    await q.query(`DROP TABLE organization_backlogs`);
  }
}
