import { MigrationInterface, QueryRunner } from 'typeorm';

/** Withdrawing an approved origin ends the organization's live sessions bound to it: found by this. */
export class IndexEmbedSessionsByOrigin1795355000000 implements MigrationInterface {
  name = 'IndexEmbedSessionsByOrigin1795355000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX embed_sessions_active_origin_idx ON embed_sessions (organization_id, origin) WHERE revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX embed_sessions_active_origin_idx`);
  }
}
