import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { createScene } from '../factories/scene.factory';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { pollUntil } from '../support/poll';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

/**
 * Provider admission (`GENERATION_PROVIDER_RATE`, docs/operations.md "Tenancy") against the Marble fake, which limits starts per
 * account over a rolling window and answers 429 with Retry-After past it, as World Labs documents:
 * GENERATION_PROVIDER_RATE keeps the whole fleet (two worker processes) under it, so Marble never
 * has to refuse, and work over it waits with `stage: queued`, its progress unchanged; a 429 anyway
 * (no rate set) holds every worker back until its Retry-After, and no operation fails or spends an
 * attempt for it. Every world is started once.
 */
const RATE = { starts: 2, windowMs: 4000 };

describe('provider admission against a rate-limited Marble', () => {
  let fake: FakeWorldLabs;
  beforeAll(async () => {
    fake = await FakeWorldLabs.start({ jobDurationMs: 200, startRate: RATE });
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake.startTimes.length = 0;
    fake.generateAttempts.length = 0;
    fake.rateLimited = 0;
    fake.submits = 0;
  });

  const suite = setUpSuite();
  const db = () => suite.api.app.get(DataSource);
  const workers = (extra: Record<string, string>) => Promise.all([1, 2].map(() => startWorkerProcess(suite.env, fake.workerConfig(extra))));
  const createAll = async (orgs: TestOrganization[], each: number) => {
    const ids: string[] = [];
    for (const org of orgs)
      for (let i = 0; i < each; i++) ids.push((await createScene(suite.api, org, { prompt: `world ${i}` })).body.operationId);
    return ids;
  };
  const finished = (ids: string[], timeoutMs: number) =>
    pollUntil(
      () => stored(db()).operations(ids),
      (rows: { status: string }[]) => rows.every((r) => r.status !== 'processing'),
      { timeoutMs, intervalMs: 250, what: 'every world to be generated' },
    );

  it('GENERATION_PROVIDER_RATE keeps two workers under the rolling window of Marble: no 429, work over it queued, every world started once', async () => {
    const orgs = [suite.org, await createOrganization(suite.api.app)];
    const ids = await createAll(orgs, 3);
    const running: ServiceProcess[] = await workers({ GENERATION_PROVIDER_RATE: `${RATE.starts}/${RATE.windowMs / 1000}` });
    try {
      // While the rate holds work back, it shows as queued with no progress.
      const waiting = await pollUntil(
        async () =>
          (
            await suite.api
              .http()
              .get(`/v1/operations/${ids.at(-1)}`)
              .set(orgs[1].auth)
          ).body,
        (b) => b.status === 'processing',
        { what: 'the last operation to be read' },
      );
      expect(waiting).toMatchObject({ stage: 'queued', progress: 0 });
      const rows = await finished(ids, 60_000);
      expect(rows.filter((r: { status: string }) => r.status !== 'succeeded')).toEqual([]);
      expect(fake.rateLimited).toBe(0);
      expect(fake.submits).toBe(ids.length);
      // No window of RATE.windowMs ever held more than RATE.starts starts.
      const t = [...fake.startTimes].sort((a, b) => a - b);
      for (let i = RATE.starts; i < t.length; i++) expect(t[i] - t[i - RATE.starts]).toBeGreaterThanOrEqual(RATE.windowMs - 50);
    } finally {
      for (const w of running) await w.stop();
    }
  });

  it('a 429 with Retry-After (no rate configured) holds every worker back until it passes; nothing fails, every world started once', async () => {
    const ids = await createAll([suite.org], 5);
    const running = await workers({});
    try {
      const rows = await finished(ids, 90_000);
      expect(rows.filter((r: { status: string }) => r.status !== 'succeeded')).toEqual([]);
      expect(fake.submits).toBe(ids.length);
      expect(fake.rateLimited).toBeGreaterThan(0);
      // After a refusal, no generate reaches Marble before its Retry-After has passed, from either
      // worker. Those already on their way aside: the pause is in force once the refused worker
      // has read the 429 and written it to Redis, and the other worker may have taken its start
      // just before; on a machine busy with other test files (several jest workers), that answer,
      // that write and the other worker's request can each take hundreds of milliseconds.
      const ON_THEIR_WAY_MS = 1000;
      const attempts = fake.generateAttempts;
      for (const refused of attempts.filter((a) => a.retryAfterSeconds !== null)) {
        const early = attempts.filter(
          (b) => b.at > refused.at + ON_THEIR_WAY_MS && b.at < refused.at + refused.retryAfterSeconds! * 1000 - 1100,
        );
        expect(early).toEqual([]);
      }
    } finally {
      for (const w of running) await w.stop();
    }
  });
});
