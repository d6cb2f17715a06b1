import { MetricsService } from '@app/core';
import { TcpProxy } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { setUpSuite, Suite } from '../support/suite';
import { postgresPort, redisPort } from '../support/server-ports';

const PG_PORT = postgresPort();
const REDIS_PORT = redisPort();
const LOAD_CLIENTS = 4;

/** The same URL through the proxy's port. */
function via(proxy: TcpProxy, url: string): string {
  const u = new URL(url);
  u.port = String(proxy.port);
  return u.toString();
}

/** A sample of the worker's `job_duration_seconds_count` for one outcome, summed over jobs. */
async function jobsWithOutcome(worker: INestApplicationContext, outcome: string): Promise<number> {
  const { body } = await worker.get(MetricsService).render();
  return body
    .split('\n')
    .filter((line) => line.startsWith('job_duration_seconds_count{') && line.includes(`outcome="${outcome}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/**
 * Partners creating scenes without pause, with every answer kept: the load a fault lands in.
 * Each request carries its own Idempotency-Key, as a partner's retry loop would.
 */
class CreationLoad {
  readonly answers: Response[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(suite: Suite, clients: number, prompt: string) {
    this.loops = Array.from({ length: clients }, async () => {
      while (this.running) {
        this.answers.push(await createScene(suite.api, suite.org, { prompt }, randomUUID()));
      }
    });
  }

  accepted(): string[] {
    return this.answers.filter((r) => r.status === 202).map((r) => r.body.operationId as string);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.allSettled(this.loops);
    for (const loop of this.loops) await loop;
  }
}

/** Runs `test` with a creation load, stopping it however the test ends. */
async function underLoad(suite: Suite, prompt: string, test: (load: CreationLoad) => Promise<void>): Promise<void> {
  const load = new CreationLoad(suite, LOAD_CLIENTS, prompt);
  try {
    await test(load);
  } finally {
    await load.stop().catch(() => undefined);
  }
}

describe('PostgreSQL restarted under load: only 503s with Retry-After, and no accepted operation fails or is lost', () => {
  const proxy = new TcpProxy('127.0.0.1', PG_PORT);
  beforeAll(() => proxy.start());
  // Registered before the suite's, so it runs after the apps closed.
  afterAll(() => proxy.cut());

  // Two attempts 50 ms apart: without waiting out the outage, every generation caught by it would fail.
  const suite: Suite = setUpSuite(() => ({
    api: { config: { DATABASE_URL: via(proxy, suite.env.databaseUrl) } },
    worker: {
      config: {
        DATABASE_URL: via(proxy, suite.env.databaseUrl),
        GENERATION_ATTEMPTS: '2',
        GENERATION_BACKOFF_MS: '50',
        WORKER_CONCURRENCY: '4',
      },
    },
  }));

  it('creations during the outage answer 503; those accepted before it all succeed after it', async () => {
    await underLoad(suite, 'a harbour at dawn, built while the database restarts', async (load) => {
      await pollUntil(
        async () => load.accepted().length,
        (n) => n >= 20,
        { what: '20 accepted creations', timeoutMs: 30_000 },
      );

      await proxy.cut();
      const cutAt = load.answers.length;
      // The outage lasts until the worker has put jobs back at least three times (each one more
      // than its two attempts would have allowed) and partners have seen 503s.
      // (A worker that spent attempts instead would fail jobs here, and the checks below say so.)
      await pollUntil(
        async () => (await jobsWithOutcome(suite.worker, 'deferred')) + (await jobsWithOutcome(suite.worker, 'failed')),
        (n) => n >= 3,
        { what: 'generation jobs meeting the outage', timeoutMs: 30_000 },
      );
      await pollUntil(
        async () => load.answers.slice(cutAt).filter((r) => r.status === 503).length,
        (n) => n >= 5,
        {
          what: '503 answers during the outage',
        },
      );
      await proxy.restore();

      await pollUntil(
        async () => load.answers.slice(cutAt).filter((r) => r.status === 202).length,
        (n) => n >= 5,
        {
          what: 'creations accepted again after the outage',
          timeoutMs: 30_000,
        },
      );
      await load.stop();

      for (const res of load.answers) {
        expect([202, 503]).toContain(res.status);
        if (res.status === 503) {
          expect(res.body.code).toBe('unavailable');
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      const accepted = load.accepted();
      for (const operationId of accepted) {
        const done = await awaitOperation(suite.api, suite.org, operationId, 60_000);
        expect(done.body).toMatchObject({ operationId, status: 'succeeded', version: 1 });
      }
      expect(await jobsWithOutcome(suite.worker, 'failed')).toBe(0);
    });
  });
});

describe('Redis frozen under load: requests stay fast through the circuit breaker, creations stay accepted', () => {
  const proxy = new TcpProxy('127.0.0.1', REDIS_PORT);
  beforeAll(() => proxy.start());
  afterAll(() => proxy.cut());

  // The api reaches Redis through the proxy; the worker (the reconciler's side) directly.
  const suite: Suite = setUpSuite(() => ({
    api: { config: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } },
    worker: { config: { RECONCILE_INTERVAL_MS: '200', RECONCILE_GRACE_MS: '1000' } },
  }));

  afterAll(() => proxy.thaw());

  const circuitCalls = async () => {
    const { body } = await suite.api.app.get(MetricsService).render();
    const count = (result: string) =>
      Number(body.match(new RegExp(`^redis_circuit_calls_total\\{result="${result}"\\} (\\d+)`, 'm'))?.[1] ?? 0);
    return { rejected: count('rejected'), timeout: count('timeout'), success: count('success') };
  };
  const circuitOpen = async () => (await suite.api.app.get(MetricsService).render()).body.includes('redis_circuit_open 1');

  it('the circuit opens, each request then costs milliseconds, and creations made meanwhile succeed', async () => {
    proxy.freeze();
    await underLoad(suite, 'a lighthouse, built while Redis hangs', async (load) => {
      await pollUntil(circuitOpen, (open) => open, { what: 'the Redis circuit to open', timeoutMs: 15_000 });

      // With the circuit open no request waits for Redis: their calls are rejected at once.
      // The only waits left are calls already in flight when it opened (one per load client)
      // and the probe of a half-open circuit.
      const before = await circuitCalls();
      for (let i = 0; i < 10; i++) {
        const created = await createScene(suite.api, suite.org, { prompt: 'a lighthouse, built while Redis hangs' });
        expect(created.status).toBe(202);
        // Polling reads the queue depth from Redis for its Retry-After.
        expect((await suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth)).status).toBe(200);
      }
      const after = await circuitCalls();
      expect(after.rejected - before.rejected).toBeGreaterThanOrEqual(10);
      expect(after.timeout - before.timeout).toBeLessThanOrEqual(LOAD_CLIENTS + 1);
      expect(after.success - before.success).toBe(0);
      await load.stop();

      for (const res of load.answers) expect(res.status).toBe(202);
      // The jobs these creations could not enqueue are enqueued by the reconciler, and run.
      for (const operationId of load.accepted().slice(0, 20)) {
        const done = await awaitOperation(suite.api, suite.org, operationId, 60_000);
        expect(done.body).toMatchObject({ operationId, status: 'succeeded' });
      }

      proxy.thaw();
      // A request after the reset timeout is the probe that closes the circuit again.
      await pollUntil(
        async () => {
          await createScene(suite.api, suite.org, { prompt: 'a lighthouse, after Redis came back' });
          return circuitOpen();
        },
        (open) => !open,
        { what: 'the Redis circuit to close again', timeoutMs: 20_000, intervalMs: 500 },
      );
    });
  });
});
