import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateScenesAndOperations1795267900000 implements MigrationInterface {
  name = 'CreateScenesAndOperations1795267900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scenes (
        id                     text PRIMARY KEY,
        organization_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        external_ref           text CHECK (char_length(external_ref) BETWEEN 1 AND 200),
        prompt                 text NOT NULL,
        source_asset_id        text REFERENCES image_assets (id),
        status                 text NOT NULL CHECK (status IN ('generating', 'ready', 'failed')),
        current_version        integer,
        creating_operation_id  text NOT NULL,
        created_at             timestamptz NOT NULL,
        updated_at             timestamptz NOT NULL,
        deleted_at             timestamptz
      )`);
    // externalRef is reserved only while the scene is active: deleted and failed scenes free it.
    await q.query(`
      CREATE UNIQUE INDEX scenes_active_external_ref_idx ON scenes (organization_id, external_ref)
       WHERE external_ref IS NOT NULL AND deleted_at IS NULL AND status <> 'failed'`);
    await q.query(`CREATE INDEX scenes_organization_idx ON scenes (organization_id, created_at)`);

    await q.query(`
      CREATE TABLE scene_versions (
        scene_id      text NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
        version       integer NOT NULL CHECK (version >= 1),
        operation_id  text NOT NULL,
        spec          jsonb NOT NULL,
        glb_blob_key  text NOT NULL,
        glb_bytes     integer NOT NULL,
        created_at    timestamptz NOT NULL,
        PRIMARY KEY (scene_id, version)
      )`);

    await q.query(`
      CREATE TABLE operations (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        scene_id         text NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
        kind             text NOT NULL CHECK (kind IN ('scene.create', 'scene.edit')),
        status           text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
        instruction      text,
        version          integer,
        error_code       text,
        error_message    text,
        error_retryable  boolean,
        enqueued_at      timestamptz,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        completed_at     timestamptz,
        CHECK ((status = 'succeeded') = (version IS NOT NULL)),
        CHECK ((status = 'failed') = (error_code IS NOT NULL))
      )`);
    // The reconciler's path: processing operations, oldest first.
    await q.query(`CREATE INDEX operations_processing_idx ON operations (updated_at) WHERE status = 'processing'`);
    await q.query(`CREATE INDEX operations_scene_idx ON operations (scene_id, created_at)`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        key              uuid NOT NULL,
        fingerprint      text NOT NULL,
        response_status  integer NOT NULL,
        response_body    jsonb NOT NULL,
        response_headers jsonb NOT NULL,
        created_at       timestamptz NOT NULL,
        expires_at       timestamptz NOT NULL,
        PRIMARY KEY (organization_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE operations`);
    await q.query(`DROP TABLE scene_versions`);
    await q.query(`DROP TABLE scenes`);
  }
}
