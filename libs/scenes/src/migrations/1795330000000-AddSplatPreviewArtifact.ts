import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version's files may include `splat-preview`: a coarse copy of a large splat world that the
 * studio draws first (libs/generation/src/splat-previews.ts). Only the kind's check changes.
 */
export class AddSplatPreviewArtifact1795330000000 implements MigrationInterface {
  name = 'AddSplatPreviewArtifact1795330000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE scene_artifacts
        DROP CONSTRAINT scene_artifacts_kind_check,
        ADD CONSTRAINT scene_artifacts_kind_check
          CHECK (kind IN ('mesh', 'splat', 'splat-preview', 'collider', 'panorama', 'thumbnail'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM scene_artifacts WHERE kind = 'splat-preview'`);
    await q.query(`
      ALTER TABLE scene_artifacts
        DROP CONSTRAINT scene_artifacts_kind_check,
        ADD CONSTRAINT scene_artifacts_kind_check CHECK (kind IN ('mesh', 'splat', 'collider', 'panorama', 'thumbnail'))`);
  }
}
