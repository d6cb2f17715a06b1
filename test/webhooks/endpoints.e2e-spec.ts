import { FakeDnsServer } from '@app/core/testing';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

const ID = /^whe_[0-9A-HJKMNP-TV-Z]{26}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('webhook endpoints: POST/GET/PATCH/DELETE /v1/webhook-endpoints and :rotate-secret', () => {
  // Names are asked of a DNS server of the test's own, which knows none: nothing depends on the machine's DNS.
  let dns: FakeDnsServer;
  beforeAll(async () => {
    dns = await FakeDnsServer.start();
  });
  afterAll(() => dns?.close());
  const suite = setUpSuite(() => ({ api: { config: { OUTBOUND_DNS_SERVERS: dns.server } }, org: false }));
  let testOrg: TestOrganization;
  let liveOrg: TestOrganization;

  beforeAll(async () => {
    testOrg = await createOrganization(suite.api.app, { test: true });
    liveOrg = await createOrganization(suite.api.app, { test: false });
  });

  const create = (org: TestOrganization, body: unknown) =>
    suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send(body as object);

  it('creates an endpoint and shows its secret once, in a private no-store answer; the secret is stored sealed', async () => {
    const res = await create(testOrg, { url: 'http://localhost:4567/hooks', events: ['operation.succeeded', 'scene.deleted'] });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body).toEqual({
      webhookEndpointId: expect.stringMatching(ID),
      url: 'http://localhost:4567/hooks',
      events: ['operation.succeeded', 'scene.deleted'],
      enabled: true,
      disabledReason: null,
      secret: expect.stringMatching(SECRET),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = res.body.webhookEndpointId as string;
    const got = await suite.api.http().get(`/v1/webhook-endpoints/${id}`).set(testOrg.auth);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const list = await suite.api.http().get('/v1/webhook-endpoints').set(testOrg.auth);
    expect(list.body.items.map((e: { webhookEndpointId: string }) => e.webhookEndpointId)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const [row] = await suite.api.app
      .get(DataSource)
      .query<{ secret_sealed: string }[]>(`SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, [id]);
    expect(row.secret_sealed).toMatch(/^v1\./);
    expect(row.secret_sealed).not.toContain(String(res.body.secret).slice(6));
  });

  it.each([
    ['a live organization: http', { test: false }, 'http://hooks.example.com/x'],
    ['a live organization: localhost', { test: false }, 'http://localhost:4567/hooks'],
    ['a live organization: https to loopback', { test: false }, 'https://127.0.0.1/hooks'],
    ['a live organization: a private address', { test: false }, 'https://10.0.0.7/hooks'],
    ['a live organization: the metadata address', { test: false }, 'https://169.254.169.254/latest/meta-data'],
    ['a live organization: IPv6 unique-local', { test: false }, 'https://[fd00::1]/hooks'],
    ['a live organization: a name that does not resolve', { test: false }, 'https://hooks.scene-studio.invalid/x'],
    ['a live organization: localhost by name over https', { test: false }, 'https://localhost/hooks'],
    ['a test organization: a private address', { test: true }, 'https://192.168.1.20/hooks'],
    ['a test organization: 127.0.0.1 over http', { test: true }, 'http://127.0.0.1:4567/hooks'],
    ['credentials', { test: true }, 'https://user:pw@hooks.example.com/x'],
    ['not a URL', { test: true }, 'hooks'],
  ])('refuses %s with 422 validation_failed on url', async (_, kind, url) => {
    const org = kind.test ? testOrg : liveOrg;
    const res = await create(org, { url, events: ['operation.failed'] });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([{ field: 'url', code: 'not_allowed', message: expect.any(String) }]);
  });

  it('accepts a live organization’s https URL on a public address', async () => {
    const res = await create(liveOrg, { url: 'https://93.184.215.14/hooks', events: ['operation.failed'] });
    expect(res.status).toBe(201);
  });

  it.each([
    [{ url: 'http://localhost:4567/hooks' }, 'events'],
    [{ url: 'http://localhost:4567/hooks', events: [] }, 'events'],
    [{ url: 'http://localhost:4567/hooks', events: ['scene.created'] }, 'events'],
    [{ url: 'http://localhost:4567/hooks', events: ['scene.deleted', 'scene.deleted'] }, 'events'],
    [{ events: ['scene.deleted'] }, 'url'],
    [{ url: 42, events: ['scene.deleted'] }, 'url'],
  ])('refuses %j (%s)', async (body, field) => {
    const res = await create(testOrg, body);
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('changes url, events and enabled with PATCH; disabling says who did it, enabling clears it', async () => {
    const { body } = await create(testOrg, { url: 'http://localhost:4567/patched', events: ['operation.succeeded'] });
    const path = `/v1/webhook-endpoints/${body.webhookEndpointId}`;
    const off = await suite.api
      .http()
      .patch(path)
      .set(testOrg.auth)
      .send({ enabled: false, events: ['operation.failed'] });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, disabledReason: 'disabled_by_partner', events: ['operation.failed'] });
    const on = await suite.api.http().patch(path).set(testOrg.auth).send({ enabled: true, url: 'http://localhost:4568/other' });
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null, url: 'http://localhost:4568/other' });
    const bad = await suite.api.http().patch(path).set(testOrg.auth).send({ url: 'http://10.0.0.1/x' });
    expectProblem(bad, 422, 'validation_failed');
  });

  it('refuses a second endpoint of the same URL with a common event (409 webhook_endpoint_conflict), by POST or PATCH', async () => {
    const url = 'http://localhost:4567/duplicate';
    const first = await create(testOrg, { url, events: ['operation.succeeded', 'scene.deleted'] });
    expect(first.status).toBe(201);
    const firstId = first.body.webhookEndpointId as string;
    const conflict = (res: Parameters<typeof expectProblem>[0]) => {
      expectProblem(res, 409, 'webhook_endpoint_conflict');
      expect(res.body.webhookEndpointId).toBe(firstId);
    };

    // The same URL as stored (the host's case is not part of it) with one event in common.
    conflict(await create(testOrg, { url: 'http://LOCALHOST:4567/duplicate', events: ['scene.deleted', 'embed_session.ended'] }));
    // Racing creations: exactly one of the same URL and events gets in.
    const raced = await Promise.all(
      Array.from({ length: 4 }, () => create(testOrg, { url: 'http://localhost:4567/raced', events: ['operation.failed'] })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    // No event in common, another URL, or another organization: allowed.
    const failedOnly = await create(testOrg, { url, events: ['operation.failed'] });
    expect(failedOnly.status).toBe(201);
    const elsewhere = await create(testOrg, { url: 'http://localhost:4567/elsewhere', events: ['operation.succeeded'] });
    expect(elsewhere.status).toBe(201);
    const other = await createOrganization(suite.api.app, { test: true });
    expect((await create(other, { url, events: ['operation.succeeded'] })).status).toBe(201);

    // PATCH may not make an overlap either, by its events or by its url; nothing is changed then.
    const patch = (id: string, body: object) => suite.api.http().patch(`/v1/webhook-endpoints/${id}`).set(testOrg.auth).send(body);
    conflict(await patch(failedOnly.body.webhookEndpointId, { events: ['operation.failed', 'operation.succeeded'] }));
    conflict(await patch(elsewhere.body.webhookEndpointId, { url }));
    const unchanged = await suite.api.http().get(`/v1/webhook-endpoints/${elsewhere.body.webhookEndpointId}`).set(testOrg.auth);
    expect(unchanged.body).toMatchObject({ url: 'http://localhost:4567/elsewhere', events: ['operation.succeeded'] });
    // An endpoint keeps its own URL and events: changing only what else it has is no conflict.
    expect((await patch(firstId, { enabled: false, events: ['operation.succeeded'] })).status).toBe(200);
    // A disabled endpoint still holds its URL; a deleted one frees it.
    conflict(await create(testOrg, { url, events: ['operation.succeeded'] }));
    expect((await suite.api.http().delete(`/v1/webhook-endpoints/${firstId}`).set(testOrg.auth)).status).toBe(204);
    expect((await create(testOrg, { url, events: ['operation.succeeded'] })).status).toBe(201);
  });

  it('rotates the secret: a new one, shown once; the old one stops being shown', async () => {
    const { body } = await create(testOrg, { url: 'http://localhost:4567/rotated', events: ['operation.succeeded'] });
    const res = await suite.api
      .http()
      .post(`/v1/webhook-endpoints/${body.webhookEndpointId}:rotate-secret`)
      .set(testOrg.auth)
      .send({ overlapSeconds: 60 });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body.secret).toMatch(SECRET);
    expect(res.body.secret).not.toBe(body.secret);
    const tooLong = await suite.api
      .http()
      .post(`/v1/webhook-endpoints/${body.webhookEndpointId}:rotate-secret`)
      .set(testOrg.auth)
      .send({ overlapSeconds: 604801 });
    expectProblem(tooLong, 422, 'validation_failed');
  });

  it('hides other organizations’ endpoints exactly like unknown ones, and DELETE is 204 for all', async () => {
    const { body } = await create(testOrg, { url: 'http://localhost:4567/hidden', events: ['operation.succeeded'] });
    const id = body.webhookEndpointId as string;
    const unknown = 'whe_01JD3Z8Q4W6K2M9T5X7B1C0VHE';
    for (const target of [id, unknown]) {
      expectProblem(await suite.api.http().get(`/v1/webhook-endpoints/${target}`).set(liveOrg.auth), 404, 'not_found');
      expectProblem(
        await suite.api.http().patch(`/v1/webhook-endpoints/${target}`).set(liveOrg.auth).send({ enabled: false }),
        404,
        'not_found',
      );
      expectProblem(
        await suite.api.http().post(`/v1/webhook-endpoints/${target}:rotate-secret`).set(liveOrg.auth).send({}),
        404,
        'not_found',
      );
      expectProblem(await suite.api.http().get(`/v1/webhook-endpoints/${target}/deliveries`).set(liveOrg.auth), 404, 'not_found');
      expect((await suite.api.http().delete(`/v1/webhook-endpoints/${target}`).set(liveOrg.auth)).status).toBe(204);
    }
    // Still there for its owner, then gone once the owner deletes it.
    expect((await suite.api.http().get(`/v1/webhook-endpoints/${id}`).set(testOrg.auth)).status).toBe(200);
    expect((await suite.api.http().delete(`/v1/webhook-endpoints/${id}`).set(testOrg.auth)).status).toBe(204);
    expectProblem(await suite.api.http().get(`/v1/webhook-endpoints/${id}`).set(testOrg.auth), 404, 'not_found');
    expect((await suite.api.http().delete(`/v1/webhook-endpoints/${id}`).set(testOrg.auth)).status).toBe(204);
    expectProblem(await suite.api.http().get('/v1/webhook-endpoints/whe_nope').set(testOrg.auth), 400, 'invalid_id');
    expectProblem(
      await suite.api.http().delete('/v1/webhook-endpoints/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(testOrg.auth),
      400,
      'invalid_id',
    );
  });
});
