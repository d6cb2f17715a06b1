import { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention job (webhooks.purge-old) finds the oldest messages and deleted endpoints by age. */
export class WebhookMessagesByAge1795305000000 implements MigrationInterface {
  name = 'WebhookMessagesByAge1795305000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_messages_created ON webhook_messages (created_at)`);
    await q.query(`CREATE INDEX webhook_endpoints_deleted ON webhook_endpoints (deleted_at) WHERE deleted_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_endpoints_deleted`);
    await q.query(`DROP INDEX webhook_messages_created`);
  }
}
