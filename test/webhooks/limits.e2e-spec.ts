import { IdGenerator } from '@app/core';
import { WEBHOOK_LIMITS, WebhookIdPrefix } from '@app/webhooks';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp, startApi } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

const TARGET = 'http://localhost:4567/hooks';
let endpointsMade = 0;

const idsOf = (res: Response): string[] => (res.body.items as { webhookEndpointId: string }[]).map((e) => e.webhookEndpointId);

/** A message of the organization and its delivery to the endpoint, written as the outbox would, with `attempts` already logged. */
async function plantDelivery(db: DataSource, ids: IdGenerator, org: TestOrganization, endpointId: string, attempts = 0): Promise<string> {
  const messageId = ids.generate(WebhookIdPrefix.Message);
  const body = {
    type: 'scene.deleted',
    timestamp: new Date().toISOString(),
    data: { sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', externalRef: null },
  };
  const log = Array.from({ length: attempts }, (_, i) => ({
    attemptedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    statusCode: 500,
    error: 'http_status',
    durationMs: i,
  }));
  await db.query(
    `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at) VALUES ($1, $2, 'scene.deleted', $3, now())`,
    [messageId, org.organizationId, JSON.stringify(body)],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, attempts, attempts_log, created_at, completed_at)
     VALUES ($1, $2, 'failed', $3, $4, now(), now())`,
    [endpointId, messageId, attempts, JSON.stringify(log)],
  );
  return messageId;
}

describe('webhook endpoint limits: at most 20 per organization, paginated lists, rate-limited replays', () => {
  const suite = setUpSuite({ org: false });
  const db = () => suite.api.app.get(DataSource);

  const create = (org: TestOrganization, api: RunningHttpApp = suite.api) =>
    api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      // A path of its own each: one URL with the same event twice is refused as a duplicate.
      .send({ url: `${TARGET}/${++endpointsMade}`, events: ['scene.deleted'] });
  const list = (org: TestOrganization, query = '') => suite.api.http().get(`/v1/webhook-endpoints${query}`).set(org.auth);

  it(`keeps an organization at ${WEBHOOK_LIMITS.endpointsPerOrganization} live endpoints, exactly, even when 40 creations race`, async () => {
    expect(WEBHOOK_LIMITS.endpointsPerOrganization).toBe(20);
    const org = await createOrganization(suite.api.app);
    // Two api processes on the same database, as replicas would be.
    const second = await startApi(suite.env);
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(org, i % 2 ? second : suite.api)));
      const created = answers.filter((r) => r.status === 201);
      const refused = answers.filter((r) => r.status !== 201);
      expect(created).toHaveLength(20);
      expect(refused).toHaveLength(20);
      for (const r of refused) expectProblem(r, 409, 'limit_exceeded');
    } finally {
      await second.close();
    }
    const [{ n }] = await db().query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL`,
      [org.organizationId],
    );
    expect(n).toBe(20);

    // A disabled endpoint still counts; a deleted one frees its place, once.
    const [first, second2] = idsOf(await list(org));
    expect((await suite.api.http().patch(`/v1/webhook-endpoints/${first}`).set(org.auth).send({ enabled: false })).status).toBe(200);
    expectProblem(await create(org), 409, 'limit_exceeded');
    expect((await suite.api.http().delete(`/v1/webhook-endpoints/${second2}`).set(org.auth)).status).toBe(204);
    expect((await create(org)).status).toBe(201);
    expectProblem(await create(org), 409, 'limit_exceeded');

    // Another organization is not affected.
    const other = await createOrganization(suite.api.app);
    expect((await create(other)).status).toBe(201);
  });

  it('lists endpoints in pages by id: every one reached exactly once, nextCursor null on the last page', async () => {
    const org = await createOrganization(suite.api.app);
    const made: string[] = [];
    for (let i = 0; i < 20; i++) made.push((await create(org)).body.webhookEndpointId as string);
    const deleted = made[3];
    expect((await suite.api.http().delete(`/v1/webhook-endpoints/${deleted}`).set(org.auth)).status).toBe(204);
    const live = made.filter((id) => id !== deleted).sort();

    // The default page holds every endpoint an organization may have: a plain GET sees them all.
    const all = await list(org);
    expect(all.status).toBe(200);
    expect(idsOf(all)).toEqual(live);
    expect(all.body.nextCursor).toBeNull();

    const seen: string[] = [];
    const sizes: number[] = [];
    let query = '?limit=7';
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(org, query);
      expect(page.status).toBe(200);
      seen.push(...idsOf(page));
      sizes.push(page.body.items.length);
      if (page.body.nextCursor === null) break;
      expect(page.body.nextCursor).toBe(idsOf(page).at(-1));
      query = `?limit=7&after=${page.body.nextCursor}`;
    }
    expect(sizes).toEqual([7, 7, 5]);
    expect(seen).toEqual(live);

    // `after` need not be a live endpoint: a deleted one's id still places the page.
    expect(idsOf(await list(org, `?after=${deleted}`))).toEqual(live.filter((id) => id > deleted));
    expect(idsOf(await list(org, '?limit=1'))).toEqual([live[0]]);
    expect((await list(org, '?limit=100')).body.items).toHaveLength(19);
  });

  it.each([
    ['?limit=0', 'limit', 'too_small'],
    ['?limit=101', 'limit', 'too_large'],
    ['?limit=ten', 'limit', 'invalid_type'],
    ['?limit=2.5', 'limit', 'invalid_type'],
    ['?after=whe_nope', 'after', 'invalid_format'],
    ['?after=scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', 'after', 'invalid_format'],
    ['?after=a&after=b', 'after', 'invalid_type'],
    ['?cursor=x', 'cursor', 'unknown_field'],
  ])('refuses %s with 422 validation_failed (%s: %s)', async (query, field, code) => {
    const org = await createOrganization(suite.api.app);
    const res = await list(org, query);
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
  });

  it(`allows ${WEBHOOK_LIMITS.replaysPerMinute} replays a minute per organization, counted across api processes; then 429 with Retry-After`, async () => {
    expect(WEBHOOK_LIMITS.replaysPerMinute).toBe(30);
    const org = await createOrganization(suite.api.app);
    const endpointId = (await create(org)).body.webhookEndpointId as string;
    const messageId = await plantDelivery(db(), suite.api.app.get(IdGenerator), org, endpointId);
    const path = `/v1/webhook-endpoints/${endpointId}/deliveries/${messageId}:replay`;
    // A second api process on the same Redis prefix and database: the budget is the organization's, not a process's.
    const second = await startApi(suite.env);
    try {
      const apis = [suite.api, second];
      for (let i = 0; i < 30; i++) {
        const res = await apis[i % 2].http().post(path).set(org.auth);
        expect(res.status).toBe(200);
      }
      for (const api of apis) {
        const res = await api.http().post(path).set(org.auth);
        expectProblem(res, 429, 'rate_limited');
        const retryAfter = Number(res.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      // Other calls of the organization and other organizations' replays are not held back.
      expect((await second.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth)).status).toBe(200);
      const other = await createOrganization(suite.api.app);
      expectProblem(await second.http().post(path).set(other.auth), 404, 'not_found');
    } finally {
      await second.close();
    }
  });
});

describe('webhook attempt log: each delivery keeps its newest attempts', () => {
  const suite = setUpSuite({
    worker: { config: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE_MS: '200' } },
    org: false,
  });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());

  it(`keeps the newest ${WEBHOOK_LIMITS.attemptsPerDelivery} attempts of a delivery replayed again and again, and counts them all`, async () => {
    expect(WEBHOOK_LIMITS.attemptsPerDelivery).toBe(20);
    const org = await createOrganization(suite.api.app);
    const created = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['scene.deleted'] });
    const endpointId = created.body.webhookEndpointId as string;
    const db = suite.api.app.get(DataSource);
    const messageId = await plantDelivery(db, suite.api.app.get(IdGenerator), org, endpointId, 20);

    const replay = await suite.api.http().post(`/v1/webhook-endpoints/${endpointId}/deliveries/${messageId}:replay`).set(org.auth);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: 'pending', attemptCount: 20 });
    const page = await pollUntil(
      () => suite.api.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth),
      (r) => r.body.items?.[0]?.status === 'succeeded',
      { what: 'the replayed delivery' },
    );
    const [delivery] = page.body.items;
    expect(delivery.attemptCount).toBe(21);
    expect(delivery.attempts).toHaveLength(20);
    // The oldest went; the rest stay in order, the new one last.
    expect(delivery.attempts[0].durationMs).toBe(1);
    expect(delivery.attempts[18].durationMs).toBe(19);
    expect(delivery.attempts[19]).toEqual({
      attemptedAt: expect.any(String),
      statusCode: 204,
      error: null,
      durationMs: expect.any(Number),
    });
    const [row] = await db.query<{ n: number }[]>(
      `SELECT jsonb_array_length(attempts_log) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND message_id = $2`,
      [endpointId, messageId],
    );
    expect(row.n).toBe(20);
  });
});
