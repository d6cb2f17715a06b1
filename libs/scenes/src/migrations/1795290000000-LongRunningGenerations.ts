import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generations that run for minutes at a provider, and versions made of several files.
 *
 * - `operations`: the stage a processing operation is in, the generator and its job at the
 *   provider (persisted before anything else once submitted, so a restarted worker resumes that
 *   job instead of submitting again), when it was submitted (the deadline counts from there), and
 *   when its provider job was cancelled (so a cancellation is sent once).
 * - `scene_artifacts`: a version's files (mesh, splat, collider, panorama, thumbnail), each with
 *   its blob, size and SHA-256. Existing versions' GLBs become their `mesh` artifact; their
 *   digests are computed here from the stored bytes.
 * - `scene_versions.generator`: which generator made the version.
 */
/** The view of CreateSceneStatesView, whose columns stay in place (a view can only gain columns at its end). */
const SCENE_STATES = `
  CREATE OR REPLACE VIEW scene_states AS
  SELECT s.id AS scene_id,
         s.deleted_at IS NOT NULL AS scene_deleted,
         s.status AS scene_status,
         s.current_version AS scene_version,
         s.source_asset_id AS scene_source_asset_id,
         CASE WHEN s.status = 'generating' THEN coalesce(c.progress, 0) END AS scene_progress,
         CASE WHEN s.status = 'failed' THEN c.error_code END AS scene_error_code,
         CASE WHEN s.status = 'failed' THEN c.error_message END AS scene_error_message,
         CASE WHEN s.status = 'failed' THEN c.error_retryable END AS scene_error_retryable,
         (SELECT max(o.updated_at) FROM operations o WHERE o.scene_id = s.id AND o.kind = 'scene.edit') AS scene_edits_updated_at`;
const SCENE_STATES_FROM = `FROM scenes s LEFT JOIN operations c ON c.id = s.creating_operation_id`;

export class LongRunningGenerations1795290000000 implements MigrationInterface {
  name = 'LongRunningGenerations1795290000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE operations
        ADD COLUMN stage text CHECK (stage IN ('queued', 'generating', 'downloading', 'storing')),
        ADD COLUMN generator text,
        ADD COLUMN provider_job jsonb,
        ADD COLUMN submitted_at timestamptz,
        ADD COLUMN provider_cancelled_at timestamptz`);
    await q.query(`UPDATE operations SET stage = 'queued' WHERE status = 'processing'`);

    await q.query(`
      CREATE TABLE scene_artifacts (
        scene_id      text NOT NULL,
        version       integer NOT NULL,
        kind          text NOT NULL CHECK (kind IN ('mesh', 'splat', 'collider', 'panorama', 'thumbnail')),
        blob_key      text NOT NULL,
        content_type  text NOT NULL,
        bytes         bigint NOT NULL CHECK (bytes >= 0),
        sha256        text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        PRIMARY KEY (scene_id, version, kind),
        FOREIGN KEY (scene_id, version) REFERENCES scene_versions (scene_id, version) ON DELETE CASCADE
      )`);
    await q.query(`
      INSERT INTO scene_artifacts (scene_id, version, kind, blob_key, content_type, bytes, sha256)
      SELECT v.scene_id, v.version, 'mesh', v.glb_blob_key, 'model/gltf-binary', v.glb_bytes, encode(sha256(b.content), 'hex')
        FROM scene_versions v JOIN blobs b ON b.key = v.glb_blob_key`);
    await q.query(`ALTER TABLE scene_versions ADD COLUMN generator text NOT NULL DEFAULT 'procedural'`);
    await q.query(`ALTER TABLE scene_versions ALTER COLUMN generator DROP DEFAULT`);
    await q.query(`ALTER TABLE scene_versions DROP COLUMN glb_blob_key, DROP COLUMN glb_bytes`);
    // The studio shows a generating scene's stage next to its progress.
    await q.query(
      `${SCENE_STATES}, CASE WHEN s.status = 'generating' THEN coalesce(c.stage, 'queued') END AS scene_stage ${SCENE_STATES_FROM}`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW scene_states`);
    await q.query(`${SCENE_STATES} ${SCENE_STATES_FROM}`.replace('CREATE OR REPLACE VIEW', 'CREATE VIEW'));
    await q.query(`ALTER TABLE scene_versions ADD COLUMN glb_blob_key text, ADD COLUMN glb_bytes integer`);
    await q.query(`
      UPDATE scene_versions v SET glb_blob_key = a.blob_key, glb_bytes = a.bytes
        FROM scene_artifacts a WHERE a.scene_id = v.scene_id AND a.version = v.version AND a.kind = 'mesh'`);
    // Versions without a mesh (splat-only worlds) cannot be expressed in the old schema.
    await q.query(`DELETE FROM scene_versions WHERE glb_blob_key IS NULL`);
    await q.query(`ALTER TABLE scene_versions ALTER COLUMN glb_blob_key SET NOT NULL, ALTER COLUMN glb_bytes SET NOT NULL`);
    await q.query(`ALTER TABLE scene_versions DROP COLUMN generator`);
    await q.query(`DROP TABLE scene_artifacts`);
    await q.query(`
      ALTER TABLE operations DROP COLUMN stage, DROP COLUMN generator, DROP COLUMN provider_job,
        DROP COLUMN submitted_at, DROP COLUMN provider_cancelled_at`);
  }
}
