import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOrganizations1795266471184 implements MigrationInterface {
  name = 'CreateOrganizations1795266471184';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id          text PRIMARY KEY,
        name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        is_test     boolean NOT NULL DEFAULT false,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX organizations_created_at_idx ON organizations (created_at)`);
    await q.query(`
      CREATE TABLE approved_origins (
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        origin           text NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, origin)
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        key_hash         text NOT NULL,
        key_prefix       text NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        revoked_at       timestamptz
      )`);
    // Authentication looks keys up by hash on every cache miss.
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash_idx ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE approved_origins`);
    await q.query(`DROP TABLE organizations`);
  }
}
