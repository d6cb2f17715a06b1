import { API_ERROR_TABLE } from '@apps/api/api-errors';
import { STUDIO_ERROR_TABLE } from '@apps/studio/studio-errors';
import { createOrganization } from '../factories/organization.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

/** Every code a problem of ours can carry: the api's and the studio's (their `type` points at the api). */
const CODES = [...new Set([...API_ERROR_TABLE.codes(), ...STUDIO_ERROR_TABLE.codes()])];

describe('GET /problems/{code}: where every problem type points', () => {
  // Two requests a window: a page that counted against the organization's budget would show at once.
  const suite = setUpSuite({ api: { config: { RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '600' } } });

  it('covers every code of the studio with the api’s registry', () => {
    expect(STUDIO_ERROR_TABLE.codes().filter((c) => !API_ERROR_TABLE.has(c))).toEqual([]);
  });

  it.each(CODES)('%s: an HTML page with its title, without an API key, cacheable', async (code) => {
    const declared = API_ERROR_TABLE.get(code)!;
    const res = await suite.api.http().get(`/problems/${code}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['vary']).toMatch(/\bAccept\b/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.text).toContain(`<h1>${declared.title}</h1>`);
    expect(res.text).toContain(`<code>${code}</code>`);
    expect(res.text).toContain(`<strong>${declared.status}</strong>`);
  });

  it.each(CODES)('%s: JSON with Accept: application/json, straight from the registry', async (code) => {
    const declared = API_ERROR_TABLE.get(code)!;
    const res = await suite.api.http().get(`/problems/${code}`).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      type: expect.stringMatching(new RegExp(`/problems/${code}$`)),
      code,
      status: declared.status,
      title: declared.title,
      action: declared.action,
    });
    expect(res.body.action.length).toBeGreaterThan(20);
  });

  it.each(['no_such_code', 'NOT_FOUND', '__proto__', 'constructor', 'not_found.json'])(
    'an unknown code (%s) is a 404 not_found problem',
    async (code) => {
      const res = await suite.api.http().get(`/problems/${code}`);
      expectProblem(res, 404, 'not_found');
      expect(res.headers['cache-control']).toBe('no-store');
    },
  );

  it("a real problem's type resolves to its own code's page, whatever the caller's key", async () => {
    const refused = await suite.api.http().get('/v1/scenes/scn_nope').set(suite.org.auth);
    expectProblem(refused, 400, 'invalid_id');
    const path = new URL(refused.body.type).pathname;
    expect(path).toBe('/problems/invalid_id');
    for (const headers of [{}, { Authorization: 'Bearer sk_test_not-a-key' }, suite.org.auth]) {
      const page = await suite.api.http().get(path).set(headers).set('Accept', 'application/json');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ code: 'invalid_id', status: refused.body.status, title: refused.body.title });
    }
  });

  it('counts against no rate limit: an organization fetching pages keeps its whole budget', async () => {
    const org = await createOrganization(suite.api.app);
    for (let i = 0; i < 5; i++) {
      const page = await suite.api.http().get('/problems/rate_limited').set(org.auth);
      expect(page.status).toBe(200);
      expect(page.headers['ratelimit-limit']).toBeUndefined();
    }
    const remaining = [];
    for (let i = 0; i < 2; i++) {
      const usage = await suite.api.http().get('/v1/usage').set(org.auth);
      expect(usage.status).toBe(200);
      remaining.push(usage.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['1', '0']);
  });
});
