import { AppConfig, ManualClock } from '@app/core';
import { WEBHOOK_LIMITS, WEBHOOKS_CONFIG, WebhookRetention, WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';
import { WebhooksDataModule } from '@app/webhooks/webhooks-data.module';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The retention job alone: the dispatcher would try to deliver the rows planted below. The lib's
 * internal data module gives it the repository, as WebhooksWorkerModule does.
 */
@Module({ imports: [WebhooksModule, WebhooksDataModule], providers: [WebhookRetention] })
class RetentionOnlyModule {}

type Planted = [endpointId: string, status: 'pending' | 'succeeded' | 'failed', endedOrDueDaysAgo: number];

describe('webhook retention (webhooks.purge-old) on a real database', () => {
  const now = Date.parse('2026-09-01T12:00:00.000Z');
  const clock = new ManualClock(now);
  const suite = setUpServices({ imports: [RetentionOnlyModule], clock });
  let org: TestOrganization;
  const db = () => suite.app.get(DataSource);
  const ago = (days: number) => new Date(clock.now().getTime() - days * DAY);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });
  beforeEach(() => clock.set(now));

  async function endpoint(id: string, deletedAt: Date | null): Promise<void> {
    await db().query(
      `INSERT INTO webhook_endpoints (id, organization_id, url, allow_loopback, events, secret_sealed, created_at, updated_at, deleted_at)
       VALUES ($1, $2, 'https://hooks.example.com/in', false, '{operation.succeeded}', 'v1.sealed', $3, $3, $4)`,
      [id, org.organizationId, ago(60), deletedAt],
    );
  }

  /** A message and its deliveries: finished ones ended (completed) that many days ago, pending ones due since then. */
  async function message(id: string, createdDaysAgo: number, deliveries: Planted[]) {
    await db().query(
      `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at) VALUES ($1, $2, 'operation.succeeded', '{}', $3)`,
      [id, org.organizationId, ago(createdDaysAgo)],
    );
    for (const [endpointId, status, days] of deliveries) {
      await db().query(
        `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, attempts, attempts_log, next_attempt_at, created_at, completed_at)
         VALUES ($1, $2, $3, 1, '[{"statusCode": 500}]', $4, $5, $6)`,
        [endpointId, id, status, status === 'pending' ? ago(days) : null, ago(createdDaysAgo), status === 'pending' ? null : ago(days)],
      );
    }
  }

  const ids = async (table: 'webhook_messages' | 'webhook_endpoints') =>
    (await db().query<{ id: string }[]>(`SELECT id FROM ${table} WHERE organization_id = $1 ORDER BY id`, [org.organizationId])).map(
      (r) => r.id,
    );
  const deliveries = async () =>
    (
      await db().query<{ endpoint_id: string; message_id: string }[]>(
        `SELECT endpoint_id, message_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE e.organization_id = $1 ORDER BY message_id, endpoint_id`,
        [org.organizationId],
      )
    ).map((r) => `${r.message_id}→${r.endpoint_id}`);

  it('erases a delivery and its attempt log 30 days after it ended, a message once no delivery names it, endpoints 30 days after deletion', async () => {
    expect(suite.app.get(AppConfig).slice(WEBHOOKS_CONFIG).retentionMs).toBe(30 * DAY);
    await endpoint('whe_live', null);
    await endpoint('whe_gone_long_ago', ago(31));
    await endpoint('whe_gone_lately', ago(29));
    // Both deliveries ended more than 30 days ago (one delivered, one failed for good after the retry schedule).
    await message('whm_old_done', 40, [
      ['whe_live', 'succeeded', 31],
      ['whe_gone_lately', 'failed', 38.9],
    ]);
    // An old event whose delivery ended lately (retried, or replayed): its 30 days count from that end.
    await message('whm_old_ended_lately', 35, [['whe_live', 'succeeded', 29.9]]);
    // Pending on a disabled endpoint, due for more than 30 days: its wait counts as its end.
    await message('whm_old_stuck', 31, [['whe_live', 'pending', 30.01]]);
    await message('whm_recent', 29.99, [
      ['whe_live', 'succeeded', 20],
      ['whe_gone_long_ago', 'succeeded', 20],
    ]);

    const result = await suite.app.get(WebhookRetention).purgeOld();

    expect(result).toEqual({ deliveries: 3, messages: 2, endpoints: 1, pruned: 0 });
    expect(await ids('webhook_messages')).toEqual(['whm_old_ended_lately', 'whm_recent']);
    expect(await ids('webhook_endpoints')).toEqual(['whe_gone_lately', 'whe_live']);
    // The long-deleted endpoint's delivery of a recent message went with the endpoint.
    expect(await deliveries()).toEqual(['whm_old_ended_lately→whe_live', 'whm_recent→whe_live']);
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 0, messages: 0, endpoints: 0, pruned: 0 });

    // A few hours on, the delivery that ended 29.9 days ago has had its 30 days, and its message goes with it.
    clock.advance(0.2 * DAY);
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 1, messages: 1, endpoints: 0, pruned: 0 });
    expect(await ids('webhook_messages')).toEqual(['whm_recent']);
    expect(await deliveries()).toEqual(['whm_recent→whe_live']);
  });

  it('works through a backlog larger than one batch in one run', async () => {
    await db().query(
      `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
       SELECT 'whm_backlog_' || n, $1, 'scene.deleted', '{}', $2 FROM generate_series(1, 2500) AS n`,
      [org.organizationId, ago(45)],
    );
    await db().query(
      `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, created_at, completed_at)
       SELECT 'whe_live', id, 'succeeded', $1, $1 FROM webhook_messages WHERE id LIKE 'whm_backlog_%'`,
      [ago(45)],
    );
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 2500, messages: 2500, endpoints: 0, pruned: 0 });
    expect(await ids('webhook_messages')).toEqual(['whm_recent']);
  });

  it(`keeps each endpoint's newest ${WEBHOOK_LIMITS.deliveriesPerEndpoint} deliveries; older finished ones go, pending ones once they finish`, async () => {
    const keep = WEBHOOK_LIMITS.deliveriesPerEndpoint;
    expect(keep).toBe(10_000);
    await endpoint('whe_busy', null);
    await endpoint('whe_quiet', null);
    // keep + 7 recent events (well inside the 30 days), message ids in the order they happened.
    await db().query(
      `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
       SELECT 'whm_busy_' || lpad(n::text, 6, '0'), $1, 'scene.deleted', '{}', $2 FROM generate_series(1, $3::int) AS n`,
      [org.organizationId, ago(1), keep + 7],
    );
    await db().query(
      `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, created_at)
       SELECT 'whe_busy', id, 'succeeded', $1 FROM webhook_messages WHERE id LIKE 'whm_busy_%'`,
      [ago(1)],
    );
    await db().query(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1 WHERE message_id = 'whm_busy_000002'`, [
      ago(1),
    ]);
    await db().query(
      `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, created_at)
       SELECT 'whe_quiet', id, 'failed', $1 FROM webhook_messages WHERE id IN ('whm_busy_000001', 'whm_busy_000003')`,
      [ago(1)],
    );
    const kept = async (endpointId: string) =>
      (
        await db().query<{ message_id: string }[]>(`SELECT message_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY message_id`, [
          endpointId,
        ])
      ).map((r) => r.message_id);

    // The 7 oldest are past the bound; the pending one among them stays.
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 0, messages: 0, endpoints: 0, pruned: 6 });
    const busy = await kept('whe_busy');
    expect(busy).toHaveLength(keep + 1);
    expect(busy.slice(0, 2)).toEqual(['whm_busy_000002', 'whm_busy_000008']);
    expect(busy.at(-1)).toBe(`whm_busy_${String(keep + 7).padStart(6, '0')}`);
    // Another endpoint's deliveries of the same messages, and the messages themselves, are not touched.
    expect(await kept('whe_quiet')).toEqual(['whm_busy_000001', 'whm_busy_000003']);
    const [{ n }] = await db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM webhook_messages WHERE id LIKE 'whm_busy_%'`);
    expect(n).toBe(keep + 7);

    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 0, messages: 0, endpoints: 0, pruned: 0 });
    await db().query(`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE message_id = 'whm_busy_000002'`);
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 0, messages: 0, endpoints: 0, pruned: 1 });
    expect(await kept('whe_busy')).toHaveLength(keep);
  });
});

describe('webhook retention with WEBHOOK_RETENTION_DAYS set', () => {
  const now = Date.parse('2026-09-01T12:00:00.000Z');
  const clock = new ManualClock(now);
  const suite = setUpServices({ imports: [RetentionOnlyModule], clock, config: { WEBHOOK_RETENTION_DAYS: '7' } });

  it('erases what ended that many days ago instead of 30', async () => {
    const org = await createOrganization(suite.app);
    const db = suite.app.get(DataSource);
    const at = (days: number) => new Date(now - days * DAY);
    await db.query(
      `INSERT INTO webhook_endpoints (id, organization_id, url, allow_loopback, events, secret_sealed, created_at, updated_at)
       VALUES ('whe_seven', $1, 'https://hooks.example.com/in', false, '{scene.deleted}', 'v1.sealed', $2, $2)`,
      [org.organizationId, at(20)],
    );
    for (const [id, endedDaysAgo] of [
      ['whm_eight', 8],
      ['whm_six', 6],
    ] as const) {
      await db.query(
        `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at) VALUES ($1, $2, 'scene.deleted', '{}', $3)`,
        [id, org.organizationId, at(endedDaysAgo + 1)],
      );
      await db.query(
        `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, created_at, completed_at) VALUES ('whe_seven', $1, 'succeeded', $2, $3)`,
        [id, at(endedDaysAgo + 1), at(endedDaysAgo)],
      );
    }
    expect(await suite.app.get(WebhookRetention).purgeOld()).toEqual({ deliveries: 1, messages: 1, endpoints: 0, pruned: 0 });
    const left = await db.query<{ id: string }[]>(`SELECT id FROM webhook_messages WHERE organization_id = $1`, [org.organizationId]);
    expect(left.map((r) => r.id)).toEqual(['whm_six']);
  });
});
