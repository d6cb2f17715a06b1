import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Saved camera paths (libs/camera-paths, docs/camera-paths.md): takes, authored moves and views,
 * per scene. The document is the camera path file as sent (a take's is megabytes, stored out of
 * line by TOAST); the summary columns are what the list shows of it, so listing reads no
 * document. Paths are deleted with their scene, in its deleting transaction (a scene-deletion
 * hook: scenes keep a tombstone, so a cascade would never fire; it is here for a scene row that
 * is one day purged).
 */
export class CreateCameraPaths1795340000000 implements MigrationInterface {
  name = 'CreateCameraPaths1795340000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE camera_paths (
        id              text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        scene_id        text NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
        kind            text NOT NULL CHECK (kind IN ('path', 'view')),
        name            text NOT NULL,
        document        jsonb NOT NULL,
        duration_ms     double precision NOT NULL,
        keyframe_count  integer NOT NULL,
        sample_count    integer NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    // The list (newest first), the per-scene count and the deletion with the scene.
    await q.query(`CREATE INDEX camera_paths_scene_list_idx ON camera_paths (organization_id, scene_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE camera_paths`);
  }
}
