import { WEBHOOK_LIMITS } from '@app/webhooks';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp, startApi } from '../support/apps';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

const TARGET = 'http://localhost:4567/hooks';

const idsOf = (res: Response): string[] => (res.body.items as { webhookEndpointId: string }[]).map((e) => e.webhookEndpointId);

describe('webhook endpoint limits: at most 20 per organization', () => {
  const suite = setUpSuite({ org: false });
  const db = () => suite.api.app.get(DataSource);

  const create = (org: TestOrganization, api: RunningHttpApp = suite.api) =>
    api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: TARGET, events: ['scene.deleted'] });
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
});
