import { ManualClock } from '@app/core';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { runCli } from '../support/processes';
import { startOps } from '../support/apps';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

/**
 * Tenancy (docs/operations.md "Tenancy"; docs/api.md "Usage") through the CLI and the api: an organization's limits (`cli org limits`),
 * the daily quota (`429 quota_exceeded`, nothing created, the key unused, a new day counts
 * afresh; the studio refuses an edit with the same code) and usage (`GET /v1/usage` and
 * `cli usage`), counted exactly and seen only by its organization.
 */
const ORIGIN = 'http://localhost:5173';

describe('limits, quotas and usage per organization', () => {
  // 22:00 UTC: two hours to the next day's quota.
  const clock = new ManualClock(Date.parse('2026-11-27T22:00:00.000Z'));
  const suite = setUpSuite({ api: { clock }, studio: { clock }, worker: { clock } });
  const db = () => suite.api.app.get(DataSource);
  const cli = async (args: string[]) => {
    const r = await runCli([...args, '--json'], { DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix });
    return { code: r.code, json: JSON.parse(r.stdout) as Record<string, any> };
  };
  const limits = (org: TestOrganization, ...flags: string[]) => cli(['org', 'limits', '--org', org.organizationId, ...flags]);
  const usage = (org: TestOrganization, query = '') => suite.api.http().get(`/v1/usage${query}`).set(org.auth);

  it('cli org limits prints the defaults, changes only what it names, and refuses what is not a limit', async () => {
    const org = await createOrganization(suite.api.app);
    expect(await limits(org)).toEqual({
      code: 0,
      json: { organizationId: org.organizationId, maxConcurrentGenerations: 10, generationsPerDay: null, maxWaitingGenerations: 1000 },
    });
    expect((await limits(org, '--generations-per-day', '500')).json).toEqual({
      organizationId: org.organizationId,
      maxConcurrentGenerations: 10,
      generationsPerDay: 500,
      maxWaitingGenerations: 1000,
    });
    expect((await limits(org, '--max-waiting-generations', '50')).json).toMatchObject({
      generationsPerDay: 500,
      maxWaitingGenerations: 50,
    });
    expect((await limits(org, '--max-concurrent-generations', '3')).json).toMatchObject({
      maxConcurrentGenerations: 3,
      generationsPerDay: 500,
    });
    expect((await limits(org, '--generations-per-day', 'unlimited')).json).toMatchObject({
      maxConcurrentGenerations: 3,
      generationsPerDay: null,
    });
    for (const bad of [
      ['--max-concurrent-generations', '0'],
      ['--max-concurrent-generations', '10001'],
      ['--generations-per-day', '1e3'],
      ['--generations-per-day', '-1'],
    ]) {
      const r = await limits(org, ...bad);
      expect(r.code).toBe(1);
      expect(r.json.error).toBeDefined();
    }
    expect((await limits(org)).json).toMatchObject({ maxConcurrentGenerations: 3, generationsPerDay: null, maxWaitingGenerations: 50 });
    const unknown = await cli(['org', 'limits', '--org', 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE']);
    expect(unknown).toMatchObject({ code: 1, json: { error: { code: 'not_found' } } });
    // Eleven CLI processes, each booting in turn: seconds apiece while other test files run.
  }, 180_000);

  it('over generationsPerDay: 429 quota_exceeded with Retry-After to midnight UTC, exactly the quota created under a race, the key unused, a new day afresh', async () => {
    const org = await createOrganization(suite.api.app);
    await limits(org, '--generations-per-day', '2');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => createScene(suite.api, org, { prompt: `race ${i}` })));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(2);
    const refused = answers.filter((r) => r.status !== 202);
    expect(refused).toHaveLength(8);
    for (const r of refused) {
      expectProblem(r, 429, 'quota_exceeded');
      expect(r.headers['retry-after']).toBe('7200');
    }
    expect(await stored(db()).sceneCount(org.organizationId)).toBe(2);

    // The refused key was not used up: once the quota allows, the same request is a new creation.
    const key = randomUUID();
    expectProblem(await createScene(suite.api, org, { prompt: 'kept key' }, key), 429, 'quota_exceeded');
    await limits(org, '--generations-per-day', '3');
    const retried = await createScene(suite.api, org, { prompt: 'kept key' }, key);
    expect(retried.status).toBe(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await usage(org)).body.today).toEqual({ generationsStarted: 3, remaining: 0 });

    clock.advance(2 * 3600 * 1000);
    expect((await createScene(suite.api, org, { prompt: 'a new day' })).status).toBe(202);
    expect((await usage(org, '?from=2026-11-28&to=2026-11-28')).body.today).toEqual({ generationsStarted: 1, remaining: 2 });
    clock.advance(-2 * 3600 * 1000);
  });

  /** Runs `work` while this test holds the admission lock: nothing is admitted meanwhile, so what is accepted waits. */
  async function withAdmissionHeld<T>(work: () => Promise<T>): Promise<T> {
    const holder = db().createQueryRunner();
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(731903119)`);
      return await work();
    } finally {
      await holder.query(`SELECT pg_advisory_unlock_all()`);
      await holder.release();
    }
  }

  it('over maxWaitingGenerations: 429 max_waiting_generations_exceeded with Retry-After, exactly the cap accepted under a race, the key unused; the studio refuses an edit too', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    const sceneId = await readyScene(suite.api, org);
    const session = await createEmbedSession(suite.api, org, { sceneId, origin: ORIGIN, mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    await limits(org, '--max-waiting-generations', '3');
    const before = await stored(db()).sceneCount(org.organizationId);
    await withAdmissionHeld(async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => createScene(suite.api, org, { prompt: `waiting ${i}` })));
      expect(answers.filter((r) => r.status === 202)).toHaveLength(3);
      for (const r of answers.filter((a) => a.status !== 202)) {
        expectProblem(r, 429, 'max_waiting_generations_exceeded');
        expect(r.body.detail).toContain('3 generations');
        expect(r.headers['retry-after']).toBe('10');
      }
      expect(await stored(db()).sceneCount(org.organizationId)).toBe(before + 3);

      // The studio's edit waits like a creation, so it is refused too, and nothing is recorded.
      const edit = await suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction: 'make it night' });
      expectProblem(edit, 429, 'max_waiting_generations_exceeded');
      expect(edit.headers['retry-after']).toBe('10');
      expect((await suite.studio.http().get('/studio-api/v1/edits').set(bearer)).body.turns).toEqual([]);

      // The refused key was not used up: once a place is free, the same request is a new creation.
      const key = randomUUID();
      expectProblem(await createScene(suite.api, org, { prompt: 'kept key' }, key), 429, 'max_waiting_generations_exceeded');
      await limits(org, '--max-waiting-generations', '4');
      const retried = await createScene(suite.api, org, { prompt: 'kept key' }, key);
      expect(retried.status).toBe(202);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      // A cancelled waiting generation frees its place at once.
      const cancel = await suite.api.http().post(`/v1/operations/${retried.body.operationId}:cancel`).set(org.auth);
      expect(cancel.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
      expect((await createScene(suite.api, org, { prompt: 'in its place' })).status).toBe(202);
      expectProblem(await createScene(suite.api, org, { prompt: 'one too many' }), 429, 'max_waiting_generations_exceeded');
    });
    // Once they are admitted they no longer wait: the organization may queue again.
    await pollUntil(
      () => createScene(suite.api, org, { prompt: 'after the backlog moved' }),
      (r) => r.status === 202,
      { what: 'a place among the waiting generations' },
    );
    expect((await usage(org)).body.limits).toMatchObject({ maxWaitingGenerations: 4 });
  });

  it('the studio refuses an edit over the quota with the same code', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    const sceneId = await readyScene(suite.api, org);
    await limits(org, '--generations-per-day', '1');
    const res = await createEmbedSession(suite.api, org, { sceneId, origin: ORIGIN, mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
    const edit = await suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction: 'make it night' });
    expectProblem(edit, 429, 'quota_exceeded');
    expect(edit.headers['retry-after']).toBeDefined();
    expect((await suite.studio.http().get('/studio-api/v1/edits').set(bearer)).body.turns).toEqual([]);
  });

  it('usage counts what happened, exactly, for its organization only; the CLI prints the same', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    const other = await createOrganization(suite.api.app);
    const upload = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(org.auth)
      .attach('file', await image('png', 64, 36), 'a.png');
    expect(upload.status).toBe(201);
    const sceneId = await readyScene(suite.api, org);
    const versionBytes = (await db().query(`SELECT sum(bytes)::int AS n FROM scene_artifacts WHERE scene_id = $1`, [sceneId]))[0]
      .n as number;
    const session = await createEmbedSession(suite.api, org, { sceneId, origin: ORIGIN, mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    const edit = await suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction: 'add fog' });
    expect(edit.status).toBe(202);
    await awaitOperation(suite.api, org, edit.body.operationId);
    // Cancelled while it waits for its turn: the test holds the admission lock meanwhile, so no
    // worker can start (and finish) it first.
    const holder = db().createQueryRunner();
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(731903119)`);
      const cancelled = await createScene(suite.api, org, { prompt: 'cancelled while waiting' });
      const res = await suite.api.http().post(`/v1/operations/${cancelled.body.operationId}:cancel`).set(org.auth);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    } finally {
      await holder.query(`SELECT pg_advisory_unlock_all()`);
      await holder.release();
    }

    const report = await pollUntil(
      async () => (await usage(org)).body,
      (b) => b.totals?.generationsSucceeded === 2,
      { what: 'the edit to be counted' },
    );
    expect(report.from).toBe('2026-11-01');
    expect(report.to).toBe('2026-11-27');
    expect(report.days).toHaveLength(27);
    const editBytes = (
      await db().query(`SELECT sum(bytes)::int AS n FROM scene_artifacts WHERE scene_id = $1 AND version = 2`, [sceneId])
    )[0].n as number;
    const today = {
      date: '2026-11-27',
      generationsStarted: 3,
      editsStarted: 1,
      generationsSucceeded: 2,
      generationsFailed: 0,
      generationsCancelled: 1,
      providerCostUnits: 0,
      storedBytes: upload.body.sizeBytes + versionBytes + editBytes,
    };
    expect(report.days.at(-1)).toEqual(today);
    const counters = { ...today } as Partial<typeof today>;
    delete counters.date;
    expect(report.totals).toEqual(counters);
    expect(report.limits).toEqual({
      organizationId: org.organizationId,
      maxConcurrentGenerations: 10,
      generationsPerDay: null,
      maxWaitingGenerations: 1000,
    });
    expect(report.today).toEqual({ generationsStarted: 3, remaining: null });

    // Another organization sees only its own (nothing).
    const theirs = (await usage(other)).body;
    expect(theirs.organizationId).toBe(other.organizationId);
    expect(theirs.totals).toEqual(Object.fromEntries(Object.keys(counters).map((k) => [k, 0])));

    const printed = await cli(['usage', '--org', org.organizationId, '--from', '2026-11-01', '--to', '2026-11-27']);
    expect(printed.code).toBe(0);
    // The CLI reads the same counters (its "today" is the wall clock's, not this file's manual one).
    expect({ ...printed.json, today: null }).toEqual({ ...report, today: null });
  });

  it("the worker's /metrics names the busiest organizations of the day and sums the rest as other: bounded labels", async () => {
    const orgs = await Promise.all(Array.from({ length: 25 }, () => createOrganization(suite.api.app)));
    // Counters as if each had started i + 100 generations today (the gauges read these rows).
    for (const [i, org] of orgs.entries()) {
      await db().query(
        `INSERT INTO usage_days (organization_id, day, generations_started, provider_cost_units) VALUES ($1, '2026-11-27', $2, $3)
         ON CONFLICT (organization_id, day) DO UPDATE SET generations_started = EXCLUDED.generations_started`,
        [org.organizationId, i + 100, 10],
      );
    }
    const ops = await startOps(suite.worker);
    try {
      const text = (await ops.http().get('/metrics')).text;
      const series = text.split('\n').filter((l) => l.startsWith('tenant_generations_started_today{'));
      expect(series).toHaveLength(21);
      expect(series).toContain(`tenant_generations_started_today{organization="${orgs[24].organizationId}"} 124`);
      expect(series.some((l) => l.includes(orgs[0].organizationId))).toBe(false);
      expect(series.find((l) => l.includes('organization="other"'))).toBeDefined();
      expect(text).toContain(`tenant_provider_cost_units_today{organization="${orgs[24].organizationId}"} 10`);
    } finally {
      await ops.close();
    }
  });

  it('GET /v1/usage refuses a period that is not one: 422 validation_failed', async () => {
    const org = await createOrganization(suite.api.app);
    for (const query of [
      '?from=2026-13-01',
      '?from=yesterday',
      '?to=2026-02-30',
      '?from=2026-11-27&to=2026-11-01',
      '?from=2026-01-01&to=2026-06-01',
      '?x=1',
    ]) {
      expectProblem(await usage(org, query), 422, 'validation_failed');
    }
    const ninetyThree = await usage(org, '?from=2026-08-27&to=2026-11-27');
    expect(ninetyThree.status).toBe(200);
    expect(ninetyThree.body.days).toHaveLength(93);
  });
});
