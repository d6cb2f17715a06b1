import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deletion erases, and ended data has a retention (docs/operations.md
 * "Data we keep"):
 *
 * - `scenes.purged_at` (libs/scenes): when the purge job (`scenes.purge-deleted`) erased a deleted
 *   scene's files, versions, prompt, externalRef, edit instructions and source image; the row left
 *   is an identifier tombstone. `prompt` may be null from then on, and only then.
 * - `operations.scene_deleted_at` (libs/scenes): set by the purge on every operation of the scene,
 *   so that retention (`scenes.purge-old-operations`) finds the finished operations of deleted
 *   scenes by one partial index instead of scanning every tombstone.
 * - Indexes for each erasure's path: deleted scenes not yet purged; scenes by source image (the
 *   purge's "still used?" check, and the foreign-key check of every image-asset deletion, the
 *   expiry sweep's included); revoked embed sessions by revocation time; finished webhook
 *   deliveries by completion time.
 *
 * Compatible with the release before: it adds nullable columns and indexes, and relaxes a NOT
 * NULL that the old code never relies on (it never purges).
 */
export class EraseDeletedData1795350000000 implements MigrationInterface {
  name = 'EraseDeletedData1795350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scenes ALTER COLUMN prompt DROP NOT NULL, ADD COLUMN purged_at timestamptz`);
    await q.query(`ALTER TABLE scenes ADD CONSTRAINT scenes_prompt_until_purged CHECK (prompt IS NOT NULL OR purged_at IS NOT NULL)`);
    await q.query(`CREATE INDEX scenes_purge_due_idx ON scenes (deleted_at, id) WHERE deleted_at IS NOT NULL AND purged_at IS NULL`);
    await q.query(`CREATE INDEX scenes_source_asset_idx ON scenes (source_asset_id) WHERE source_asset_id IS NOT NULL`);
    await q.query(`ALTER TABLE operations ADD COLUMN scene_deleted_at timestamptz`);
    await q.query(`CREATE INDEX operations_of_deleted_scenes_idx ON operations (completed_at) WHERE scene_deleted_at IS NOT NULL`);
    await q.query(`CREATE INDEX embed_sessions_revoked_idx ON embed_sessions (revoked_at) WHERE revoked_at IS NOT NULL`);
    await q.query(`CREATE INDEX webhook_deliveries_completed_idx ON webhook_deliveries (completed_at) WHERE status <> 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_completed_idx`);
    await q.query(`DROP INDEX embed_sessions_revoked_idx`);
    await q.query(`DROP INDEX operations_of_deleted_scenes_idx`);
    await q.query(`ALTER TABLE operations DROP COLUMN scene_deleted_at`);
    await q.query(`DROP INDEX scenes_source_asset_idx`);
    await q.query(`DROP INDEX scenes_purge_due_idx`);
    await q.query(`ALTER TABLE scenes DROP CONSTRAINT scenes_prompt_until_purged`);
    // A purged tombstone's prompt is gone for good; the old schema only needs a value.
    await q.query(`UPDATE scenes SET prompt = '' WHERE prompt IS NULL`);
    await q.query(`ALTER TABLE scenes ALTER COLUMN prompt SET NOT NULL, DROP COLUMN purged_at`);
  }
}
