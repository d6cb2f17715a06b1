import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `scene_states`: the scenes lib's read model of a scene's state for other libs (embed sessions
 * join it on every studio call), so that no other lib reads `scenes` or `operations` directly
 * (docs/architecture.md). A plain view: Postgres inlines it into the query that joins it, and
 * a column the query does not use (the edit-history subquery) is never computed.
 */
export class CreateSceneStatesView1795280000000 implements MigrationInterface {
  name = 'CreateSceneStatesView1795280000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW scene_states AS
      SELECT s.id AS scene_id,
             s.deleted_at IS NOT NULL AS scene_deleted,
             s.status AS scene_status,
             s.current_version AS scene_version,
             s.source_asset_id AS scene_source_asset_id,
             CASE WHEN s.status = 'generating' THEN coalesce(c.progress, 0) END AS scene_progress,
             CASE WHEN s.status = 'failed' THEN c.error_code END AS scene_error_code,
             CASE WHEN s.status = 'failed' THEN c.error_message END AS scene_error_message,
             CASE WHEN s.status = 'failed' THEN c.error_retryable END AS scene_error_retryable,
             (SELECT max(o.updated_at) FROM operations o WHERE o.scene_id = s.id AND o.kind = 'scene.edit') AS scene_edits_updated_at
        FROM scenes s LEFT JOIN operations c ON c.id = s.creating_operation_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW scene_states`);
  }
}
