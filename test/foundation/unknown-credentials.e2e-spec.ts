import { MetricsService } from '@app/core';
import { TcpProxy } from '@app/core/testing';
import { randomBytes } from 'node:crypto';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { viewDocument } from '../factories/camera-path.factory';
import { OrganizationsService } from '@app/organizations';
import { RunningHttpApp, startApi, startStudio } from '../support/apps';
import { PgStatementCounter } from '../support/pg-statements';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { postgresPort } from '../support/server-ports';

const PG_PORT = postgresPort();
/** UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE's default. */
const BUDGET = 300;
/** Tokens one process may hold unspent (1 % of the budget, rate-limiter.ts): what a refusal may come early by. */
const BATCH = 3;

const unknownKey = () => `sk_live_${randomBytes(32).toString('base64url')}`;
const unknownSecret = () => randomBytes(32).toString('base64url');
/** A syntactically valid embed session id (a Crockford base32 ULID) that names no session. */
const unknownSessionId = () => `es_${Array.from(randomBytes(26), (b) => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[b % 32]).join('')}`;

/**
 * Lookups of credentials found lately (`credential_lookups_total{outcome="known"}`): a valid key
 * whose cache entry (5 s at most) ran out is looked up again, free of the budget but a statement
 * on the wire, so a flood slower than the cache counts them too.
 */
async function knownLookups(app: RunningHttpApp): Promise<number> {
  // Read from the counter itself: rendering every metric would run the gauges that read
  // PostgreSQL, statements the proxy would count as lookups.
  const counter = app.app.get(MetricsService).counter('credential_lookups_total', '', ['outcome'] as const);
  const { values } = await counter.get();
  return values.find((v) => v.labels.outcome === 'known')?.value ?? 0;
}

/** Runs `requests` with `concurrency` at once; their answers in order. */
async function flood<T>(requests: Array<() => PromiseLike<T>>, concurrency = 12): Promise<T[]> {
  const answers: T[] = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const i = next++;
        answers[i] = await requests[i]();
      }
    }),
  );
  return answers;
}

/**
 * Requests whose API key or embed secret is not known to be valid cost a PostgreSQL lookup each;
 * per client address at most UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE of them reach the database
 * (across api and studio replicas, through Redis), the rest are `429 rate_limited` with
 * Retry-After. The statements are counted on the wire, by a proxy in front of PostgreSQL.
 */
describe('the per-address limit for unknown credentials, on both public ports', () => {
  const suite = setUpSuite({ worker: {}, org: { test: true } });
  const statements = new PgStatementCounter();
  const proxy = new TcpProxy('127.0.0.1', PG_PORT, statements.feed);
  let api: RunningHttpApp;
  let studio: RunningHttpApp;
  /** The database through the counting proxy. */
  let DATABASE_URL: string;

  beforeAll(async () => {
    const url = new URL(suite.env.databaseUrl);
    url.port = String(await proxy.start());
    DATABASE_URL = url.toString();
    // The api believes X-Forwarded-For from a proxy on loopback (the test client); the studio trusts none (the default).
    api = await startApi(suite.env, { config: { DATABASE_URL, TRUSTED_PROXIES: 'loopback' } });
    studio = await startStudio(suite.env, { config: { DATABASE_URL } });
  });

  afterAll(async () => {
    await studio?.close();
    await api?.close();
    await proxy.cut();
  });

  it('api: a flood of unknown keys from one address stops at the budget, and no further query runs', async () => {
    const flooder = { 'X-Forwarded-For': '203.0.113.9' };
    // The partner's key, used once: verified and cached.
    expect((await api.http().get('/v1/anything').set(suite.org.auth).set(flooder)).status).toBe(404);

    const before = statements.count;
    const knownBefore = await knownLookups(api);
    const answers = await flood(
      Array.from({ length: BUDGET + 120 }, (_, i) =>
        i % 10 === 0
          ? () => api.http().get('/v1/anything').set(suite.org.auth).set(flooder)
          : () =>
              api
                .http()
                .get('/v1/anything')
                .set({ Authorization: `Bearer ${unknownKey()}`, ...flooder }),
      ),
    );
    const lookups = statements.count - before - ((await knownLookups(api)) - knownBefore);
    const unknown = answers.filter((_, i) => i % 10 !== 0);
    const refused = unknown.filter((a) => a.status === 429);
    expect(unknown.filter((a) => a.status === 401).length).toBeGreaterThanOrEqual(BUDGET - BATCH);
    expect(unknown.filter((a) => a.status === 401).length).toBeLessThanOrEqual(BUDGET);
    expect(refused.length + unknown.filter((a) => a.status === 401).length).toBe(unknown.length);
    for (const r of refused) {
      expectProblem(r, 429, 'rate_limited');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    // The valid key, cached, was never slowed: every one of its requests reached the router.
    expect(answers.filter((_, i) => i % 10 === 0).map((a) => a.status)).toEqual(Array(Math.ceil((BUDGET + 120) / 10)).fill(404));
    // One query per unknown key that got through, none for the refused ones.
    expect(lookups).toBeLessThanOrEqual(BUDGET);

    // Nothing more reaches the database from that address…
    const after = statements.count;
    expectProblem(
      await api
        .http()
        .get('/v1/anything')
        .set({ Authorization: `Bearer ${unknownKey()}`, ...flooder }),
      429,
      'rate_limited',
    );
    expect(statements.count).toBe(after);
    // …while another address (named by the trusted proxy) has its own budget.
    expectProblem(
      await api
        .http()
        .get('/v1/anything')
        .set({ Authorization: `Bearer ${unknownKey()}`, 'X-Forwarded-For': '198.51.100.4' }),
      401,
      'unauthenticated',
    );
  });

  it('studio: unknown secrets and session ids from one address stop at the budget, valid ones keep working', async () => {
    const sceneId = await readyScene(suite.api, suite.org);
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    const { secret, sessionId } = parseEmbedUrl(res.body.url);
    const valid = { Authorization: `Bearer ${secret}` };
    // The session, used once: its secret and id are known here from now on.
    expect((await studio.http().get('/studio-api/v1/session').set(valid)).status).toBe(200);
    const page = await studio.http().get(`/embed/${sessionId}`);
    expect(page.status).toBe(200);
    // What one valid call costs the database, to count the flood's lookups alone.
    let before = statements.count;
    await studio.http().get('/studio-api/v1/session').set(valid);
    const perValidCall = statements.count - before;
    expect(perValidCall).toBeGreaterThan(0);

    before = statements.count;
    // X-Forwarded-For is ignored here (TRUSTED_PROXIES unset): every request is the socket's address.
    const spoof = () => ({ 'X-Forwarded-For': `192.0.2.${Math.floor(Math.random() * 250)}` });
    const kinds = ['secret', 'page', 'camera-path', 'valid'] as const;
    const plan = Array.from({ length: BUDGET + 120 }, (_, i) => kinds[i % 4]);
    const answers = await flood(
      plan.map((kind) => {
        switch (kind) {
          case 'secret':
            return () =>
              studio
                .http()
                .get('/studio-api/v1/session')
                .set({ Authorization: `Bearer ${unknownSecret()}`, ...spoof() });
          case 'page':
            return () => studio.http().get(`/embed/${unknownSessionId()}`).set(spoof());
          case 'camera-path':
            return () =>
              studio
                .http()
                .post('/studio-api/v1/camera-paths')
                .set({ Authorization: `Bearer ${unknownSecret()}`, ...spoof() })
                .send({ kind: 'view', name: 'x', document: viewDocument() });
          default:
            return () => studio.http().get('/studio-api/v1/session').set(valid);
        }
      }),
    );
    const lookups = statements.count - before - perValidCall * plan.filter((k) => k === 'valid').length;
    const unknown = answers.filter((_, i) => plan[i] !== 'valid');
    const refused = unknown.filter((a) => a.status === 429);
    // Unknown secrets are 401, unknown pages the ended page (404), until the budget is spent.
    const answered = unknown.filter((a) => a.status === 401 || a.status === 404);
    expect(answered.length).toBeGreaterThanOrEqual(BUDGET - BATCH);
    expect(answered.length).toBeLessThanOrEqual(BUDGET);
    expect(refused.length + answered.length).toBe(unknown.length);
    for (const r of refused) {
      expectProblem(r, 429, 'rate_limited');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect(answers.filter((_, i) => plan[i] === 'valid').every((a) => a.status === 200)).toBe(true);
    expect(lookups).toBeLessThanOrEqual(BUDGET);

    // Spent: an unknown secret is refused without a query; the session's page and API still answer.
    const after = statements.count;
    expectProblem(
      await studio
        .http()
        .get('/studio-api/v1/session')
        .set({ Authorization: `Bearer ${unknownSecret()}` }),
      429,
      'rate_limited',
    );
    expectProblem(await studio.http().get(`/embed/${unknownSessionId()}`), 429, 'rate_limited');
    expect(statements.count).toBe(after);
    expect((await studio.http().get(`/embed/${sessionId}`)).status).toBe(200);
    expect((await studio.http().get('/studio-api/v1/session').set(valid)).status).toBe(200);
  });

  /**
   * Only misses are charged: a crowd behind one address (an office, a school, a carrier's NAT)
   * opening its own studios or calling with its own keys is never refused nor charged (the
   * lookups' own counter says so, whatever the time it took), and the same address then still has
   * its whole budget for unknown credentials: 300 looked up, the 301st refused without a query.
   */
  describe('valid credentials are never charged', () => {
    const VALID = 1000;
    /** A thousand sessions issued and opened, or a thousand keys: work, not waiting, that takes this long on a loaded 2-core machine. */
    const TIMEOUT_MS = 240_000;
    let crowdStudio: RunningHttpApp;

    beforeAll(async () => {
      // Its own studio believes X-Forwarded-For from loopback, so the crowd has an address of its own.
      crowdStudio = await startStudio(suite.env, { config: { DATABASE_URL, TRUSTED_PROXIES: 'loopback' } });
    });

    afterAll(async () => {
      await crowdStudio?.close();
    });

    /** The studio's or api's `credential_lookups_total` by outcome. */
    async function outcomes(app: RunningHttpApp): Promise<Record<string, number>> {
      const { body } = await app.app.get(MetricsService).render();
      return Object.fromEntries(
        ['known', 'found', 'counted', 'refused'].map((o) => [
          o,
          Number(new RegExp(`^credential_lookups_total\\{outcome="${o}"\\} (\\d+)$`, 'm').exec(body)?.[1] ?? 0),
        ]),
      );
    }

    const delta = (after: Record<string, number>, before: Record<string, number>) =>
      Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k]]));

    /**
     * BUDGET unknown credentials from the address, all answered after a lookup, then one more,
     * refused without one. Quick (seconds), so all within the minute its first miss opens.
     */
    async function spendTheBudget(request: () => PromiseLike<Parameters<typeof expectProblem>[0]>) {
      const answers = await flood(Array.from({ length: BUDGET }, () => request));
      expect(answers.map((a) => a.status)).toEqual(Array(BUDGET).fill(401));
      const before = statements.count;
      const refused = await request();
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(statements.count).toBe(before);
    }

    it(
      `studio: ${VALID} sessions from one address all open their studio; its ${BUDGET + 1}st unknown secret is 429`,
      async () => {
        const crowd = { 'X-Forwarded-For': '198.51.100.77' };
        const sceneId = await readyScene(suite.api, suite.org);
        const issued = await flood(
          Array.from({ length: VALID }, () => async () => {
            const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
            expect(res.status).toBe(201);
            return parseEmbedUrl(res.body.url);
          }),
          8,
        );
        const before = await outcomes(crowdStudio);
        // What each studio does first: its page by id, then the session with its secret.
        const opened = await flood(
          issued.map((session) => async () => {
            const page = await crowdStudio.http().get(`/embed/${session.sessionId}`).set(crowd);
            const api = await crowdStudio
              .http()
              .get('/studio-api/v1/session')
              .set(crowd)
              .set({ Authorization: `Bearer ${session.secret}` });
            return [page.status, api.status];
          }),
        );
        expect(opened).toEqual(Array(VALID).fill([200, 200]));
        // Two thousand lookups, each found: none charged, none refused.
        expect(delta(await outcomes(crowdStudio), before)).toEqual({ known: 0, found: 2 * VALID, counted: 0, refused: 0 });

        // The address's budget is whole: 300 unknown secrets are looked up, the 301st is 429.
        await spendTheBudget(() =>
          crowdStudio
            .http()
            .get('/studio-api/v1/session')
            .set(crowd)
            .set({ Authorization: `Bearer ${unknownSecret()}` }),
        );
        expectProblem(await crowdStudio.http().get(`/embed/${unknownSessionId()}`).set(crowd), 429, 'rate_limited');
        // The crowd's studios keep working.
        expect(
          (
            await crowdStudio
              .http()
              .get('/studio-api/v1/session')
              .set(crowd)
              .set({ Authorization: `Bearer ${issued[0].secret}` })
          ).status,
        ).toBe(200);
      },
      TIMEOUT_MS,
    );

    it(
      `api: ${VALID} keys from one address all authenticate; its ${BUDGET + 1}st unknown key is 429`,
      async () => {
        const crowd = { 'X-Forwarded-For': '198.51.100.78' };
        const organizations = suite.api.app.get(OrganizationsService);
        const keys: string[] = [];
        for (let i = 0; i < VALID; i++) keys.push((await organizations.createApiKey(suite.org.organizationId)).apiKey);
        const before = await outcomes(api);
        const answers = await flood(
          keys.map(
            (key) => async () =>
              (
                await api
                  .http()
                  .get('/v1/anything')
                  .set(crowd)
                  .set({ Authorization: `Bearer ${key}` })
              ).status,
          ),
        );
        // 404: authenticated, and no such route.
        expect(answers).toEqual(Array(VALID).fill(404));
        // A thousand lookups, each found (a key whose 5 s cache entry ran out meanwhile is looked up again, known): none charged.
        const spent = delta(await outcomes(api), before);
        expect(spent).toMatchObject({ found: VALID, counted: 0, refused: 0 });

        await spendTheBudget(() =>
          api
            .http()
            .get('/v1/anything')
            .set(crowd)
            .set({ Authorization: `Bearer ${unknownKey()}` }),
        );
      },
      TIMEOUT_MS,
    );
  });
});
