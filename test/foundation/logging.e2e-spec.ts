import { LogCapture } from '@app/core/testing';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp, startApi } from '../support/apps';
import { createTestEnvironment, TestEnvironment } from '../support/environment';

describe('request logging', () => {
  let env: TestEnvironment;
  let api: RunningHttpApp;
  let org: TestOrganization;
  const logs = new LogCapture();

  beforeAll(async () => {
    env = await createTestEnvironment();
    api = await startApi(env, { logs });
    org = await createOrganization(api.app);
  });

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const requestLines = (requestId: string) =>
    logs.records().filter((r) => r.msg === 'request completed' && r.requestId === requestId);

  it('writes one JSON line per request with method, route template, status, duration, request id and organization', async () => {
    const res = await api.http().get('/v1/anything/else?x=1').set(org.auth).set('X-Request-Id', 'log-test-1');
    expect(res.status).toBe(404);
    const lines = requestLines('log-test-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      app: 'api',
      method: 'GET',
      route: '(unmatched)',
      path: '/v1/anything/else',
      status: 404,
      durationMs: expect.any(Number),
      organizationId: org.organizationId,
    });
  });

  it('logs route templates, not raw paths, for matched routes', async () => {
    await api.http().get('/v1/openapi.json').set('X-Request-Id', 'log-test-2');
    expect(requestLines('log-test-2')[0]).toMatchObject({ route: '/v1/openapi.json', status: 200, organizationId: null });
  });

  it('never logs the Authorization header, cookies, query strings or keys, wherever they are sent', async () => {
    const unknownKey = `sk_live_${'Z'.repeat(43)}`;
    await api.http().get('/v1/x').set(org.auth).set('Cookie', 'session=cookie-secret-value');
    await api.http().get(`/v1/x?api_key=${org.apiKey}&token=query-secret-value`).set('X-Request-Id', 'log-test-3');
    await api.http().get('/v1/x').set('Authorization', `Bearer ${unknownKey}`);
    await api.http().post('/v1/x').set(org.auth).set('Content-Type', 'application/json').send({ apiKey: org.apiKey });
    expect(requestLines('log-test-3')).toHaveLength(1);
    const text = logs.text;
    for (const secret of [org.apiKey, unknownKey, 'cookie-secret-value', 'query-secret-value', 'Bearer']) {
      expect(text).not.toContain(secret);
    }
  });

  it('does not log probe requests', async () => {
    await api.http().get('/healthz').set('X-Request-Id', 'log-test-probe');
    expect(requestLines('log-test-probe')).toHaveLength(0);
  });
});
