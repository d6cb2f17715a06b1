import { TcpProxy } from '@app/core/testing';
import { createScene } from '../factories/scene.factory';
import { RunningHttpApp, startApi } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { postgresPort } from '../support/server-ports';

const PG_PORT = postgresPort();

describe('a database outage answers 503 unavailable with Retry-After, never 500', () => {
  const suite = setUpSuite();
  const proxy = new TcpProxy('127.0.0.1', PG_PORT);
  let api: RunningHttpApp;

  beforeAll(async () => {
    const port = await proxy.start();
    const url = new URL(suite.env.databaseUrl);
    url.port = String(port);
    api = await startApi(suite.env, { config: { DATABASE_URL: url.toString() } });
    // The key is verified once and then served from the cache, so requests get past
    // authentication while the database is away.
    expectProblem(await api.http().get('/v1/scenes/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth), 404, 'not_found');
  });

  afterAll(async () => {
    await proxy.cut();
    await api?.close();
  });

  it('on reads and on creation, and recovers when the database is back', async () => {
    await proxy.cut();
    const requests = [
      () => api.http().get('/v1/scenes/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth),
      () => api.http().get('/v1/operations/op_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth),
      () => api.http().get('/v1/scenes?externalRef=order-1').set(suite.org.auth),
      () => createScene(api, suite.org, { prompt: 'during the outage' }),
    ];
    for (const request of requests) {
      const res = await request();
      expectProblem(res, 503, 'unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONN|5432|terminat|postgres/i);
    }

    await proxy.restore();
    await pollUntil(
      async () => (await api.http().get('/v1/scenes/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth)).status,
      (status) => status === 404,
      { what: 'the api to reach the database again' },
    );
    expect((await createScene(api, suite.org, { prompt: 'after the outage' })).status).toBe(202);
  });
});
