import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEmbedSessions1795270800000 implements MigrationInterface {
  name = 'CreateEmbedSessions1795270800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE embed_sessions (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        scene_id         text NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
        origin           text NOT NULL,
        mode             text NOT NULL CHECK (mode IN ('edit', 'perform', 'edit_and_perform')),
        theme            jsonb NOT NULL,
        secret_hash      text NOT NULL,
        created_at       timestamptz NOT NULL,
        expires_at       timestamptz NOT NULL,
        revoked_at       timestamptz,
        revoked_reason   text CHECK (revoked_reason IN ('revoked', 'scene_deleted'))
      )`);
    // The studio finds a session by the hash of the secret it is shown, on every call.
    await q.query(`CREATE UNIQUE INDEX embed_sessions_secret_hash_idx ON embed_sessions (secret_hash)`);
    // Scene deletion revokes the scene's active sessions.
    await q.query(`CREATE INDEX embed_sessions_active_scene_idx ON embed_sessions (scene_id) WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX embed_sessions_expiry_idx ON embed_sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE embed_sessions`);
  }
}
