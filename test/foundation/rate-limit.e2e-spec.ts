import { createOrganization } from '../factories/organization.factory';
import { startApi } from '../support/apps';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

describe('rate limiting per organization', () => {
  const suite = setUpSuite({ api: { config: { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' } } });

  it('counts down in RateLimit headers and answers 429 rate_limited with Retry-After once spent', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await suite.api.http().get('/v1/anything').set(suite.org.auth);
      expect(res.status).toBe(404);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      remaining.push(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await suite.api.http().get('/v1/anything').set(suite.org.auth);
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
  });

  it('is per organization: another organization keeps its own budget', async () => {
    const other = await createOrganization(suite.api.app);
    const res = await suite.api.http().get('/v1/anything').set(other.auth);
    expect(res.status).toBe(404);
    expect(res.headers['ratelimit-remaining']).toBe('2');
  });

  it('is shared through Redis by every api process', async () => {
    const other = await createOrganization(suite.api.app);
    const second = await startApi(suite.env, { config: { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    try {
      await suite.api.http().get('/v1/anything').set(other.auth);
      await suite.api.http().get('/v1/anything').set(other.auth);
      const third = await second.http().get('/v1/anything').set(other.auth);
      expect(third.headers['ratelimit-remaining']).toBe('0');
      expectProblem(await second.http().get('/v1/anything').set(other.auth), 429, 'rate_limited');
    } finally {
      await second.close();
    }
  });

  it('exempts health, readiness, the API description and the problem pages', async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/v1/openapi.json', '/problems/rate_limited']) {
        const res = await suite.api.http().get(path).set(suite.org.auth);
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    }
  });

  it('does not count unauthenticated requests against anyone', async () => {
    const other = await createOrganization(suite.api.app);
    for (let i = 0; i < 5; i++) expectProblem(await suite.api.http().get('/v1/anything'), 401, 'unauthenticated');
    expect((await suite.api.http().get('/v1/anything').set(other.auth)).headers['ratelimit-remaining']).toBe('2');
  });
});
