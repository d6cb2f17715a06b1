import { TcpProxy } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import fc from 'fast-check';
import { RunningOpsServer, startOps, startWorker } from '../support/apps';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';

/**
 * The worker's /metrics under concurrent scrapes while its PostgreSQL is up, hung (a frozen
 * connection) or gone (refused): every scrape answers 200, in time for Prometheus (10 s by default)
 * with the outage shown (`dependency_up` 0) and the gauges read from PostgreSQL left out rather
 * than waited for; once the database is back they return, and the process is alive throughout.
 * Three fixed seeds (between them every change of state: up, cut, frozen, frozen after cut, up
 * after either) and one drawn for the run (in the test's name, to replay it).
 */
const SEEDS = [1, 2, 3, Math.floor(Math.random() * 2 ** 31)];
type DatabaseState = 'up' | 'frozen' | 'cut';
const step = fc.record({ database: fc.constantFrom<DatabaseState>('up', 'frozen', 'cut', 'up'), scrapes: fc.integer({ min: 1, max: 12 }) });
/** The scrape-time reads give up after 2 s, the readiness check after 1 s; generous for a loaded machine. */
const SCRAPE_DEADLINE_MS = 6_000;
const DB_GAUGES = /^(generations_waiting|generations_in_progress|webhook_endpoints|tenant_generations_started_today)\{/m;

describe("the worker's /metrics while PostgreSQL comes and goes", () => {
  const suite = setUpSuite({ api: false, org: false });
  // Nested, so its afterAll closes the worker before the suite's drops the database (jest runs a
  // block's afterAll hooks in the order they were declared, inner blocks first): dropped first,
  // the worker's live connections were terminated under it, an unhandled pg error.
  describe('its database behind a proxy', () => {
    let proxy: TcpProxy;
    let worker: INestApplicationContext;
    let ops: RunningOpsServer;

    beforeAll(async () => {
      const database = new URL(suite.env.databaseUrl);
      proxy = new TcpProxy('127.0.0.1', Number(database.port || 5432));
      database.port = String(await proxy.start());
      worker = await startWorker(suite.env, { config: { DATABASE_URL: database.toString() } });
      ops = await startOps(worker);
    });
    // Each seed leaves the database up; the worker closes while it is.
    afterAll(async () => {
      await ops?.close();
      await worker?.close();
      await proxy?.cut();
    });

    async function set(state: DatabaseState, current: DatabaseState): Promise<void> {
      if (state === current) return;
      if (current === 'frozen') proxy.thaw();
      if (current === 'cut') await proxy.restore();
      if (state === 'frozen') proxy.freeze();
      if (state === 'cut') await proxy.cut();
    }

    async function scrape(): Promise<{ status: number; ms: number; text: string }> {
      const t0 = performance.now();
      const res = await fetch(`${ops.url}/metrics`, { signal: AbortSignal.timeout(20_000) });
      return { status: res.status, text: await res.text(), ms: performance.now() - t0 };
    }

    it.each(SEEDS)('seed %i: concurrent scrapes answer in time, showing the outage, and the gauges come back', async (seed) => {
      const steps = fc.sample(step, { seed, numRuns: 4 });
      let state: DatabaseState = 'up';
      try {
        for (const { database, scrapes } of steps) {
          await set(database, state);
          state = database;
          const answers = await Promise.all(Array.from({ length: scrapes }, scrape));
          const context = `seed ${seed}, database ${database}, ${scrapes} at once`;
          expect({ context, statuses: [...new Set(answers.map((a) => a.status))] }).toEqual({ context, statuses: [200] });
          const slowest = Math.max(...answers.map((a) => a.ms));
          expect({ context, slowest, inTime: slowest < SCRAPE_DEADLINE_MS }).toEqual({ context, slowest, inTime: true });
          if (database === 'up') {
            // Up again after an outage: the pool may hold connections that died with it; within a few
            // scrapes every gauge is back.
            await pollUntil(scrape, (a) => a.text.includes('dependency_up{dependency="database"} 1') && DB_GAUGES.test(a.text), {
              timeoutMs: 20_000,
              intervalMs: 200,
              what: `the database gauges back (${context})`,
            });
          } else {
            for (const a of answers) {
              expect(a.text).toContain('dependency_up{dependency="database"} 0');
              expect(a.text).toContain('dependency_up{dependency="redis"} 1');
              // The other metrics are all there.
              expect(a.text).toContain('process_resident_memory_bytes');
              expect(a.text).toContain('job_duration_seconds');
            }
            // A frozen database leaves the gauges read from it empty rather than stalling the scrape.
            if (database === 'frozen') for (const a of answers) expect(a.text).not.toMatch(DB_GAUGES);
          }
        }
      } finally {
        await set('up', state);
      }
      // Alive and answering.
      expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
      await pollUntil(scrape, (a) => DB_GAUGES.test(a.text), { timeoutMs: 20_000, intervalMs: 200, what: 'the gauges after the campaign' });
    });
  });
});
