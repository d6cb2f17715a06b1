import { LogCapture } from '@app/core/testing';
import { setUpSuite } from '../support/suite';

describe('request logging', () => {
  const logs = new LogCapture();
  const suite = setUpSuite({ api: { logs } });

  const requestLines = (requestId: string) => logs.records().filter((r) => r.msg === 'request completed' && r.requestId === requestId);

  it('writes one JSON line per request with method, route template, status, duration, request id and organization', async () => {
    const res = await suite.api.http().get('/v1/anything/else?x=1').set(suite.org.auth).set('X-Request-Id', 'log-test-1');
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
      organizationId: suite.org.organizationId,
    });
  });

  it('logs route templates, not raw paths, for matched routes', async () => {
    await suite.api.http().get('/v1/openapi.json').set('X-Request-Id', 'log-test-2');
    expect(requestLines('log-test-2')[0]).toMatchObject({ route: '/v1/openapi.json', status: 200, organizationId: null });
  });

  it('never logs the Authorization header, cookies, query strings or keys, wherever they are sent', async () => {
    const unknownKey = `sk_live_${'Z'.repeat(43)}`;
    await suite.api.http().get('/v1/x').set(suite.org.auth).set('Cookie', 'session=cookie-secret-value');
    await suite.api.http().get(`/v1/x?api_key=${suite.org.apiKey}&token=query-secret-value`).set('X-Request-Id', 'log-test-3');
    await suite.api.http().get('/v1/x').set('Authorization', `Bearer ${unknownKey}`);
    await suite.api.http().post('/v1/x').set(suite.org.auth).set('Content-Type', 'application/json').send({ apiKey: suite.org.apiKey });
    expect(requestLines('log-test-3')).toHaveLength(1);
    const text = logs.text;
    for (const secret of [suite.org.apiKey, unknownKey, 'cookie-secret-value', 'query-secret-value', 'Bearer']) {
      expect(text).not.toContain(secret);
    }
  });

  it('does not log probe requests', async () => {
    await suite.api.http().get('/healthz').set('X-Request-Id', 'log-test-probe');
    expect(requestLines('log-test-probe')).toHaveLength(0);
  });
});
