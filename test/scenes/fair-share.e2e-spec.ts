import { DataSource } from 'typeorm';
import { ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { RunningHttpApp, startWorker } from '../support/apps';
import { pollUntil } from '../support/poll';
import { freePort, ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';
import type { OperationEntity } from '@app/operations/operation.entity';

/**
 * Fair share across organizations (docs/architecture.md, "Fair share"): an organization with one operation waiting
 * while another has more than a hundred sees it start within the next 2 × (worker slots) starts; within an
 * organization, arrival order; with several worker replicas, through a worker killed with SIGKILL
 * and a Redis restart, every operation runs once and succeeds.
 */
const SLOTS_PER_WORKER = 4;
/** The heavy organization's creations in the one-worker test. */
const FLOOD = 120;

type Row = Pick<OperationEntity, 'id' | 'status' | 'startedAt' | 'createdAt' | 'completedAt' | 'sceneId'>;

async function flood(api: RunningHttpApp, org: TestOrganization, count: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, j) => createScene(api, org, { prompt: `${label} ${i + j}` })),
    );
    for (const res of batch) {
      if (res.status !== 202) throw new Error(`creation answered ${res.status}: ${JSON.stringify(res.body)}`);
      ids.push(res.body.operationId as string);
    }
  }
  return ids;
}

/** How many operations started before `id` (by when a worker first started each). */
function startsBefore(rows: Row[], id: string): number {
  const mine = rows.find((r) => r.id === id)!;
  return rows.filter((r) => r.id !== id && r.startedAt != null && r.startedAt < mine.startedAt!).length;
}

describe('fair share across organizations', () => {
  const suite = setUpSuite({ api: { config: { WORKER_CONCURRENCY: String(SLOTS_PER_WORKER) } } });
  const db = () => suite.api.app.get(DataSource);
  const rowsOf = (ids: string[]): Promise<Row[]> => stored(db()).operations(ids);
  const allDone = (ids: string[], timeoutMs: number) =>
    pollUntil(
      () => stored(db()).operationCount({ id: ids, status: 'processing' }),
      (n: number) => n === 0,
      { timeoutMs, intervalMs: 250, what: 'every operation to finish' },
    );

  // 120 procedural generations on a busy two-core machine take longer than jest's default minute;
  // enough for the turns to tell: a first-come queue would start the 1 after all 120.
  it('one organization floods 120 creations, another sends 1, the worker stopped: once it starts, the 1 starts within 2 × its slots and finishes before 90 % of the flood', async () => {
    const heavy = suite.org;
    const light = await createOrganization(suite.api.app);
    const flooded = await flood(suite.api, heavy, FLOOD, 'flood');
    const one = (await createScene(suite.api, light, { prompt: 'just one' })).body.operationId as string;
    // Waiting for their turns, in PostgreSQL: nothing is on the queue while no worker admits.
    const waiting = await rowsOf([...flooded, one]);
    expect(waiting.every((r) => r.status === 'processing' && r.startedAt === null)).toBe(true);
    expect((await suite.api.http().get(`/v1/operations/${one}`).set(light.auth)).body).toMatchObject({ stage: 'queued', progress: 0 });

    const worker = await startWorker(suite.env, { config: { WORKER_CONCURRENCY: String(SLOTS_PER_WORKER) } });
    try {
      expect((await awaitOperation(suite.api, light, one, 60_000)).body.status).toBe('succeeded');
      const [done] = await rowsOf([one]);
      await allDone(flooded, 180_000);
      const rows = await rowsOf([...flooded, one]);
      // Completion times do not change once set: counted now, as they stood when the 1 finished.
      const heavyDone = rows.filter((r) => r.id !== one && r.status === 'succeeded' && r.completedAt! <= done.completedAt!).length;
      expect(heavyDone).toBeLessThan(0.9 * FLOOD);
      expect(startsBefore(rows, one)).toBeLessThanOrEqual(2 * SLOTS_PER_WORKER);
      expect(done.status).toBe('succeeded');
      // Within the heavy organization, arrival order: starts follow creations.
      const heavyRows = rows
        .filter((r) => r.id !== one)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
      const outOfOrder = heavyRows.filter((r, i) => i > 0 && r.startedAt! < heavyRows[i - 1].startedAt!).length;
      // Four slots start jobs side by side, so neighbours may swap within a round; never by more.
      expect(outOfOrder).toBeLessThan(heavyRows.length / 4);
      expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
    } finally {
      await worker.close();
    }
  }, 300_000);
});

describe('fair share with two worker processes, a SIGKILL and a Redis restart', () => {
  // A Redis of its own, restarted by the test (without persistence, as the compose file runs it).
  let redis: ChildProcess;
  let redisPort: number;
  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const listens = () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(redisPort, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    await pollUntil(listens, (up) => up, { what: 'redis-server to listen' });
  };
  const stopRedis = () =>
    new Promise<void>((resolve) => {
      if (redis.exitCode !== null || redis.signalCode !== null) return resolve();
      redis.once('exit', () => resolve());
      redis.kill('SIGKILL');
    });

  // Before the suite's own hooks, which start an api on this Redis; stopped after they close it.
  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
  }, 30_000);
  const suite = setUpSuite(() => ({ api: { config: { REDIS_URL: `redis://127.0.0.1:${redisPort}` } } }));
  afterAll(async () => {
    await stopRedis();
  });

  const db = () => suite.api.app.get(DataSource);
  const workerEnv = () => ({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    WORKER_CONCURRENCY: String(SLOTS_PER_WORKER),
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_GRACE_MS: '2000',
  });

  it('two replicas share the turns: the light organization still starts within 2 × (all slots); killed and restarted, every operation runs once', async () => {
    const heavy = suite.org;
    const light = await createOrganization(suite.api.app);
    const flooded = await flood(suite.api, heavy, 120, 'replicas');
    const one = (await createScene(suite.api, light, { prompt: 'one among many' })).body.operationId as string;
    const workers: ServiceProcess[] = [];
    try {
      workers.push(await startWorkerProcess(suite.env, workerEnv()));
      workers.push(await startWorkerProcess(suite.env, workerEnv()));
      await pollUntil(
        () => stored(db()).operationCount({ id: flooded, status: 'succeeded' }),
        (n: number) => n >= 20,
        { timeoutMs: 60_000, what: 'the flood to be under way' },
      );
      // One replica dies mid-flood, then Redis restarts empty: queued jobs and locks are gone.
      await workers[0].stop('SIGKILL');
      await stopRedis();
      await startRedis();
      workers.push(await startWorkerProcess(suite.env, workerEnv()));
      const ids = [...flooded, one];
      await pollUntil(
        () => stored(db()).operationCount({ id: ids, status: 'processing' }),
        (n: number) => n === 0,
        { timeoutMs: 180_000, intervalMs: 500, what: 'every operation to finish after the kill and the restart' },
      );
      const rows = await stored(db()).operations(ids);
      expect(rows.filter((r) => r.status !== 'succeeded')).toEqual([]);
      // Once each: one version per scene, never a second for a job that ran twice.
      const versions = await stored(db()).sceneVersions(rows.map((r) => r.sceneId));
      const perScene = new Map(rows.map((r) => [r.sceneId, 0]));
      for (const v of versions) perScene.set(v.sceneId, perScene.get(v.sceneId)! + 1);
      expect([...perScene].filter(([, n]) => n !== 1)).toEqual([]);
      expect(startsBefore(rows, one)).toBeLessThanOrEqual(2 * 2 * SLOTS_PER_WORKER);
    } finally {
      for (const w of workers) await w.stop('SIGKILL');
    }
  }, 240_000);
});
