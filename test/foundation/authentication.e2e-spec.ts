import { ApiKeyAuthenticator, OrganizationsService } from '@app/organizations';
import { DataSource } from 'typeorm';
import { createOrganization } from '../factories/organization.factory';
import { startApi } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

describe('API key authentication', () => {
  const suite = setUpSuite();

  const wellFormedUnknown = `sk_test_${'A'.repeat(43)}`;

  describe.each([
    ['an existing route', '/readyz-not-public'],
    ['an unknown /v1 route', '/v1/anything'],
  ])('on %s', (_, path) => {
    it.each<[string, Record<string, string>]>([
      ['no Authorization header', {}],
      ['an empty Authorization header', { Authorization: '' }],
      ['the Basic scheme', { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
      ['Bearer without a token', { Authorization: 'Bearer ' }],
      ['a token that is not a key', { Authorization: 'Bearer not-a-key' }],
      ['a key with a wrong prefix', { Authorization: `Bearer pk_test_${'A'.repeat(43)}` }],
      ['a key one character short', { Authorization: `Bearer sk_test_${'A'.repeat(42)}` }],
      ['a key with a forbidden character', { Authorization: `Bearer sk_test_${'A'.repeat(42)}!` }],
      ['two tokens', { Authorization: `Bearer ${wellFormedUnknown} ${wellFormedUnknown}` }],
      ['an unknown well-formed test key', { Authorization: `Bearer ${wellFormedUnknown}` }],
      ['an unknown well-formed live key', { Authorization: `Bearer sk_live_${'B'.repeat(43)}` }],
    ])('%s gives 401 unauthenticated with WWW-Authenticate: Bearer', async (_case, headers) => {
      const res = await suite.api.http().get(path).set(headers);
      expectProblem(res, 401, 'unauthenticated');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    });
  });

  it('accepts the scheme name in any case', async () => {
    const res = await suite.api.http().get('/v1/anything').set('Authorization', `bearer ${suite.org.apiKey}`);
    expectProblem(res, 404, 'not_found');
  });

  it('never echoes the key in the response', async () => {
    const res = await suite.api.http().get('/v1/anything').set('Authorization', `Bearer ${wellFormedUnknown}`);
    expect(JSON.stringify(res.headers) + res.text).not.toContain(wellFormedUnknown);
  });

  it('a revoked key stops working at once in the process that revoked it', async () => {
    const other = await createOrganization(suite.api.app);
    expectProblem(await suite.api.http().get('/v1/anything').set(other.auth), 404, 'not_found');
    await suite.api.app.get(OrganizationsService).revokeApiKey(other.keyId);
    expectProblem(await suite.api.http().get('/v1/anything').set(other.auth), 401, 'unauthenticated');
  });

  it('a revoked key stops working in another process as soon as the revocation is broadcast', async () => {
    const second = await startApi(suite.env);
    try {
      const other = await createOrganization(suite.api.app);
      // Warm the second process's cache.
      expectProblem(await second.http().get('/v1/anything').set(other.auth), 404, 'not_found');
      await suite.api.app.get(OrganizationsService).revokeApiKey(other.keyId);
      await pollUntil(
        async () => (await second.http().get('/v1/anything').set(other.auth)).status,
        (s) => s === 401,
        { timeoutMs: 1000, what: 'the broadcast revocation' },
      );
    } finally {
      await second.close();
    }
  });

  it('without the broadcast, a cached key still stops working when its cache entry expires', async () => {
    const second = await startApi(suite.env, { config: { API_KEY_CACHE_TTL_SECONDS: '1' } });
    try {
      const other = await createOrganization(suite.api.app);
      expectProblem(await second.http().get('/v1/anything').set(other.auth), 404, 'not_found');
      // Revoke behind every process's back: no broadcast at all.
      await stored(suite.api.app.get(DataSource)).revokeApiKeySilently(other.keyId);
      expect((await second.http().get('/v1/anything').set(other.auth)).status).toBe(404);
      await pollUntil(
        async () => (await second.http().get('/v1/anything').set(other.auth)).status,
        (s) => s === 401,
        { timeoutMs: 2500, what: 'the cache entry to expire' },
      );
    } finally {
      await second.close();
    }
  });

  it('keys of two organizations authenticate as their own organization', async () => {
    const a = await createOrganization(suite.api.app);
    const b = await createOrganization(suite.api.app);
    const authenticator = suite.api.app.get(ApiKeyAuthenticator);
    expect((await authenticator.authenticate(a.auth.Authorization, null))?.organizationId).toBe(a.organizationId);
    expect((await authenticator.authenticate(b.auth.Authorization, null))?.organizationId).toBe(b.organizationId);
  });
});
