import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revert is an edit turn that restores an earlier version instead of asking the generator for a
 * change: `revert_to` names that version. It stays a `scene.edit` operation, so partners read it
 * like any edit (an operation that succeeds with version n + 1) and the studio's history, its
 * `edit.updated` pushes and the reconciler need nothing new.
 */
export class AddOperationRevertTo1795320000000 implements MigrationInterface {
  name = 'AddOperationRevertTo1795320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE operations
        ADD COLUMN revert_to integer CHECK (revert_to >= 1),
        ADD CONSTRAINT operations_revert_is_edit CHECK (revert_to IS NULL OR kind = 'scene.edit')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE operations DROP CONSTRAINT operations_revert_is_edit, DROP COLUMN revert_to`);
  }
}
