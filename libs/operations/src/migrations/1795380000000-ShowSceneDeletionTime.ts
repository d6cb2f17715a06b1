import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `scene_states` gains `scene_deleted_at`, the deletion's time: a session that outlived its scene
 * is the deletion's to announce (`scene_deleted`), one that expired before it the expiry sweep's
 * (`expired`), and the sweep tells them apart by it. Added at the view's end, where a view can
 * gain a column in place (CREATE OR REPLACE keeps the others as they are).
 */
const SCENE_STATES = `
  SELECT s.id AS scene_id,
         s.deleted_at IS NOT NULL AS scene_deleted,
         s.status AS scene_status,
         s.current_version AS scene_version,
         s.source_asset_id AS scene_source_asset_id,
         CASE WHEN s.status = 'generating' THEN coalesce(c.progress, 0) END AS scene_progress,
         CASE WHEN s.status = 'failed' THEN c.error_code END AS scene_error_code,
         CASE WHEN s.status = 'failed' THEN c.error_message END AS scene_error_message,
         CASE WHEN s.status = 'failed' THEN c.error_retryable END AS scene_error_retryable,
         (SELECT max(o.updated_at) FROM operations o WHERE o.scene_id = s.id AND o.kind = 'scene.edit') AS scene_edits_updated_at,
         CASE WHEN s.status = 'generating' THEN coalesce(c.stage, 'queued') END AS scene_stage`;
const SCENE_STATES_FROM = `FROM scenes s LEFT JOIN operations c ON c.id = s.creating_operation_id`;

export class ShowSceneDeletionTime1795380000000 implements MigrationInterface {
  name = 'ShowSceneDeletionTime1795380000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE VIEW scene_states AS ${SCENE_STATES}, s.deleted_at AS scene_deleted_at ${SCENE_STATES_FROM}`);
  }

  async down(q: QueryRunner): Promise<void> {
    // A view cannot lose a column in place.
    await q.query(`DROP VIEW scene_states`);
    await q.query(`CREATE VIEW scene_states AS ${SCENE_STATES} ${SCENE_STATES_FROM}`);
  }
}
