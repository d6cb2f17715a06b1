import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateImageAssets1795267204438 implements MigrationInterface {
  name = 'CreateImageAssets1795267204438';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE blobs (
        key           text PRIMARY KEY,
        content       bytea NOT NULL,
        content_type  text NOT NULL,
        size_bytes    integer NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now()
      )`);
    // Images and glTF binaries are already compressed: skip TOAST's pglz attempt, keep out of line.
    await q.query(`ALTER TABLE blobs ALTER COLUMN content SET STORAGE EXTERNAL`);
    await q.query(`
      CREATE TABLE image_assets (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        format           text NOT NULL CHECK (format IN ('png', 'jpeg', 'webp')),
        width            integer NOT NULL CHECK (width > 0),
        height           integer NOT NULL CHECK (height > 0),
        size_bytes       integer NOT NULL CHECK (size_bytes > 0),
        sha256           text NOT NULL,
        status           text NOT NULL CHECK (status IN ('unattached', 'attached')),
        blob_key         text NOT NULL,
        created_at       timestamptz NOT NULL,
        expires_at       timestamptz,
        attached_at      timestamptz,
        CHECK ((status = 'unattached') = (expires_at IS NOT NULL))
      )`);
    // The sweeper's path: oldest expired unattached assets first.
    await q.query(`CREATE INDEX image_assets_expiry_idx ON image_assets (expires_at) WHERE status = 'unattached'`);
    await q.query(`CREATE INDEX image_assets_organization_idx ON image_assets (organization_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE image_assets`);
    await q.query(`DROP TABLE blobs`);
  }
}
