import { BlobStore } from '@app/core';
import { SceneArtifactEntity } from '@app/scenes/scene.entity';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { viewDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { pollUntil } from '../support/poll';
import { freePort, ServiceProcess } from '../support/processes';
import { LocalS3, startLocalS3 } from '../support/s3-server';
import { setUpSuite } from '../support/suite';
import {
  downloadDigest,
  heldMetrics,
  HeldMetrics,
  largestTakeBody,
  problemOf,
  RawAnswer,
  rawRequest,
  residentMemory,
  seeded,
} from './hostile-session';

const MiB = 1024 * 1024;
/** The studio's memory limit in deploy/kubernetes (values.json: studio.resources.limits.memory). */
const MANIFEST_LIMIT = 512 * MiB;
/**
 * The file a session downloads: far more than a few chunks, and 20 of them whole in memory (as
 * the studio once read them) would be 640 MiB, more than the limit.
 */
const ARTIFACT_BYTES = 32 * MiB;
/** Test-only preload: SIGUSR2 makes the studio collect its garbage. */
const GC_ON_SIGNAL = join(__dirname, '../support/fixtures/gc-on-signal.js');
/** What the fuzz campaign may leave reachable in the collected heap (caches warming, code compiled). */
const LEFT_REACHABLE = 16 * MiB;
const RUN_SEED = Number(process.env.SS_FUZZ_SEED_BASE ?? Math.floor(Math.random() * 2 ** 31));
const SEEDS = [20261129, 4242, RUN_SEED];
const ACTIONS_PER_SEED = 32;

jest.setTimeout(300_000);

type Store = 'postgres' | 's3';

/**
 * One studio process of the build, spawned, so its memory is its own and measured from outside
 * (/proc/<pid>/status: VmHWM, the resident peak), under what one hostile perform session can ask
 * for at once: 20 camera-path writes of 8 MiB and 20 downloads of a 32 MiB file, with a second
 * session writing as much, while a third, ordinary session works. The studio must stay under its
 * manifest's memory limit and keep its event loop responsive (its own monitorEventLoopDelay, read
 * from its /metrics), answer every refusal as a problem with Retry-After, and afterwards hold no
 * slot, connection, pool client or timer. Then clients that drop their connections mid-body and
 * mid-download, several seeds at once. Against both blob stores (issue 32, item 3).
 */
function hostileSession(store: Store) {
  describe(`the studio under a hostile session (${store === 's3' ? 'S3' : 'PostgreSQL'} blob store)`, () => {
    let s3: LocalS3 | undefined;
    let s3Dir: string | undefined;
    const storeConfig = () => (s3 ? { ...s3.config } : {});

    beforeAll(async () => {
      if (store !== 's3') return;
      s3Dir = mkdtempSync(join(tmpdir(), 'ss-s3-'));
      chmodSync(s3Dir, 0o755);
      s3 = await startLocalS3(s3Dir);
    });

    const suite = setUpSuite(() => ({ api: { config: storeConfig() }, worker: { config: storeConfig() }, org: { test: true } }));
    let studio: ServiceProcess;
    let url: string;
    let opsUrl: string;
    let sceneId: string;
    let artifactDigest: string;
    let take: Buffer;
    let rest: HeldMetrics;

    async function session(): Promise<Record<string, string>> {
      const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
      expect(res.status).toBe(201);
      return { authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
    }

    function alive(): void {
      if (studio.child.exitCode !== null || studio.child.signalCode !== null) {
        throw new Error(`the studio ended (${studio.child.exitCode ?? studio.child.signalCode}):\n${studio.stderr.slice(-3000)}`);
      }
    }

    const write = (bearer: Record<string, string>, body: Buffer, options?: { abortAfterBytes?: number }) =>
      rawRequest(`${url}/studio-api/v1/camera-paths`, 'POST', { ...bearer, 'content-type': 'application/json' }, body, options);
    const download = (bearer: Record<string, string>, options?: { readBytes?: number; holdMs?: number }) =>
      rawRequest(`${url}/studio-api/v1/scene/versions/1/artifacts/mesh`, 'GET', bearer, undefined, options);

    /** A refusal of the slots: a problem with Retry-After, 429 for the session's share, 503 for a full process. */
    function expectSlotRefusal(answer: RawAnswer): void {
      expect([429, 503]).toContain(answer.status);
      expect(problemOf(answer)).toMatchObject({ code: answer.status === 429 ? 'rate_limited' : 'unavailable', status: answer.status });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }

    let collections = 0;
    /** The studio's figures right after a full garbage collection in it (SIGUSR2: GC_ON_SIGNAL). */
    async function collectedMetrics(): Promise<HeldMetrics> {
      alive();
      const done = `gc-on-signal: collection ${++collections}\n`;
      studio.child.kill('SIGUSR2');
      await pollUntil(
        () => Promise.resolve(studio.stderr.includes(done)),
        (collected) => collected,
        { timeoutMs: 10_000, intervalMs: 10, what: `the studio's collection ${collections}` },
      );
      return heldMetrics(opsUrl);
    }

    /** Waits until the studio holds nothing a request took: slots, connections, pool clients, timers. */
    function settled(what: string): Promise<HeldMetrics> {
      return pollUntil(
        async () => {
          alive();
          return heldMetrics(opsUrl);
        },
        (m) =>
          m.writeSlots === 0 &&
          m.readSlots === 0 &&
          m.connections === 0 &&
          m.poolWaiting === 0 &&
          m.poolIdle === m.poolTotal &&
          m.timers <= rest.timers,
        { timeoutMs: 30_000, intervalMs: 250, what },
      );
    }

    beforeAll(async () => {
      sceneId = await readyScene(suite.api, suite.org);
      // The version's mesh replaced by 32 MiB, in whichever store the services use.
      const [artifact] = await suite.api.app
        .get(DataSource)
        .getRepository(SceneArtifactEntity)
        .findBy({ sceneId, version: 1, kind: 'mesh' });
      const bytes = randomBytes(ARTIFACT_BYTES);
      artifactDigest = createHash('sha256').update(bytes).digest('hex');
      await suite.api.app.get(BlobStore).put(artifact.blobKey, bytes, 'model/gltf-binary');
      take = largestTakeBody();

      const [port, opsPort] = [await freePort(), await freePort()];
      url = `http://127.0.0.1:${port}`;
      opsUrl = `http://127.0.0.1:${opsPort}`;
      studio = new ServiceProcess(
        'studio',
        {
          DATABASE_URL: suite.env.databaseUrl,
          QUEUE_PREFIX: suite.env.queuePrefix,
          NODE_ENV: 'test',
          HOST: '127.0.0.1',
          STUDIO_PORT: String(port),
          STUDIO_OPS_PORT: String(opsPort),
          LOG_LEVEL: 'warn',
          ...storeConfig(),
        },
        [
          // SIGUSR2 collects garbage (the heap check below reads the live size, not V8's lazy one).
          '--expose-gc',
          '--require',
          GC_ON_SIGNAL,
          // SS_STUDIO_CPU_PROFILE=<dir>: the studio writes a CPU profile there as it stops (what held its event loop).
          ...(process.env.SS_STUDIO_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SS_STUDIO_CPU_PROFILE}`] : []),
        ],
      );
      await pollUntil(
        async () => {
          alive();
          return fetch(`${opsUrl}/readyz`).then(
            (r) => r.status,
            () => 0,
          );
        },
        (status) => status === 200,
        { timeoutMs: 30_000, intervalMs: 200, what: 'the studio to be ready' },
      );
      // Warm: a write and a download through every path, before the baseline.
      const warm = await session();
      expect((await write(warm, take)).status).toBe(201);
      const read = await download(warm);
      expect(read.status).toBe(200);
      expect(downloadDigest(read)).toBe(artifactDigest);
      rest = await pollUntil(
        () => collectedMetrics(),
        (m) => m.connections === 0 && m.writeSlots === 0 && m.readSlots === 0,
        {
          what: 'the studio at rest',
        },
      );
    });

    afterAll(async () => {
      await studio?.stop();
      await s3?.close();
      if (s3Dir) rmSync(s3Dir, { recursive: true, force: true });
    });

    it('20 writes of 8 MiB and 20 downloads of 32 MiB from one session (and 20 writes from another) stay within 512 MiB and a responsive event loop; a third session is served', async () => {
      const [hostile, second, ordinary] = [await session(), await session(), await session()];
      const before = residentMemory(studio.child.pid!);
      // A scrape restarts the event-loop delay histogram: what the next one reads is the load's.
      await heldMetrics(opsUrl);

      const writes = Array.from({ length: 20 }, () => write(hostile, take));
      const reads = Array.from({ length: 20 }, () => download(hostile));
      const secondWrites = Array.from({ length: 20 }, () => write(second, take));
      // Meanwhile an ordinary session does what a page does, one call after another.
      const ordinaryWork = (async () => {
        const started = performance.now();
        const statuses: number[] = [];
        for (const path of ['/session', '/scene/versions/1/artifacts', '/scene/versions/1/spec', '/camera-paths']) {
          statuses.push((await rawRequest(`${url}/studio-api/v1${path}`, 'GET', ordinary)).status);
        }
        const view = Buffer.from(JSON.stringify({ kind: 'view', name: 'Meanwhile', document: viewDocument() }));
        statuses.push((await write(ordinary, view)).status);
        const file = await download(ordinary);
        statuses.push(file.status);
        return { statuses, digest: file.status === 200 ? downloadDigest(file) : null, seconds: (performance.now() - started) / 1000 };
      })();

      const [w, r, w2, mine] = await Promise.all([Promise.all(writes), Promise.all(reads), Promise.all(secondWrites), ordinaryWork]);
      const load = await heldMetrics(opsUrl);
      const after = residentMemory(studio.child.pid!);
      alive();

      // The session's own writes: at most its share at once, the rest refused before their body.
      for (const a of w) if (a.status !== 201) expectSlotRefusal(a);
      for (const a of w2) if (a.status !== 201) expectSlotRefusal(a);
      const saved = w.filter((a) => a.status === 201).length;
      expect(saved).toBeGreaterThanOrEqual(1);
      expect(w.some((a) => a.status === 429)).toBe(true);
      // Its downloads: whole and exact, or refused.
      for (const a of r) {
        if (a.status === 200) expect(downloadDigest(a)).toBe(artifactDigest);
        else expectSlotRefusal(a);
      }
      const served = r.filter((a) => a.status === 200).length;
      expect(served).toBeGreaterThanOrEqual(1);
      expect(r.some((a) => a.status === 429)).toBe(true);
      // The ordinary session got everything it asked for.
      expect(mine.statuses).toEqual([200, 200, 200, 200, 201, 200]);
      expect(mine.digest).toBe(artifactDigest);

      const figures = {
        store,
        rssBeforeMiB: mib(before.rss),
        rssPeakMiB: mib(after.peak),
        eventLoopP99Ms: Math.round(load.lagP99 * 1000),
        eventLoopMaxMs: Math.round(load.lagMax * 1000),
        hostileWrites: tally(w),
        hostileReads: tally(r),
        secondWrites: tally(w2),
        ordinarySeconds: Math.round(mine.seconds * 10) / 10,
      };
      if (process.env.SS_STUDIO_MEMORY_REPORT)
        writeFileSync(`${process.env.SS_STUDIO_MEMORY_REPORT}.${store}.load.json`, JSON.stringify(figures));
      expect(after.peak).toBeLessThan(MANIFEST_LIMIT);
      // No stall: the longest task under this load stays well under a second even when the
      // machine is shared. The 100 ms p99 design target is a speed figure, not a test: it is read
      // from SS_STUDIO_MEMORY_REPORT's figures on a quiet machine (docs/performance.md).
      expect(load.lagMax).toBeLessThan(2);
      await settled('the load to let go of every slot, connection, pool client and timer');
    });

    it(`${SEEDS.length} seeds × ${ACTIONS_PER_SEED} clients that drop mid-body and mid-download, at once, leave it running with nothing held`, async () => {
      const campaigns = SEEDS.map(async (seed) => {
        const random = seeded(seed);
        const sessions = [await session(), await session()];
        const answers: Array<{ action: string; status: number }> = [];
        const actions = Array.from({ length: ACTIONS_PER_SEED }, () => {
          const bearer = sessions[Math.floor(random() * sessions.length)];
          const roll = random();
          const at = Math.floor(random() * take.length);
          const readBytes = Math.floor(random() * ARTIFACT_BYTES * 0.5);
          const holdMs = Math.floor(random() * 1500);
          if (roll < 0.35) return { action: 'write, dropped mid-body', run: () => write(bearer, take, { abortAfterBytes: at }) };
          if (roll < 0.45) return { action: 'write', run: () => write(bearer, take) };
          if (roll < 0.9) return { action: 'download, dropped', run: () => download(bearer, { readBytes, holdMs }) };
          return { action: 'download', run: () => download(bearer) };
        });
        // Eight at a time per seed, every seed at once.
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < actions.length) {
              const { action, run } = actions[next++];
              const answer = await run();
              answers.push({ action, status: answer.status });
              if (answer.status >= 500 && answer.status !== 503) throw new Error(`seed ${seed}: ${action} answered ${answer.status}`);
              if (answer.status === 503 || answer.status === 429) expectSlotRefusal(answer);
              if (action === 'download' && answer.status === 200) expect(downloadDigest(answer)).toBe(artifactDigest);
            }
          }),
        );
        return { seed, statuses: tally(answers) };
      });
      const results = await Promise.all(campaigns);
      alive();
      const after = await settled('the campaign to let go of every slot, connection, pool client and timer');
      // The live heap, collected, against the collected baseline: what the campaign left reachable.
      // (V8 collects lazily, and not at all in a process that allocates nothing: uncollected, the
      // heap took about 30 s to shrink back, and only while a page polled.) A few collections, as
      // what a finished request held may need more than one to go.
      const heap = await pollUntil(
        () => collectedMetrics(),
        (m) => m.heapUsed <= rest.heapUsed + LEFT_REACHABLE,
        {
          timeoutMs: 15_000,
          intervalMs: 250,
          what: 'the collected heap to be back near its baseline',
        },
      );
      if (process.env.SS_STUDIO_MEMORY_REPORT) {
        writeFileSync(
          `${process.env.SS_STUDIO_MEMORY_REPORT}.${store}.fuzz.json`,
          JSON.stringify({
            store,
            results,
            heapRestMiB: mib(rest.heapUsed),
            heapAfterMiB: mib(heap.heapUsed),
            timers: [rest.timers, after.timers],
          }),
        );
      }
      // The studio still works for a new session.
      const fresh = await session();
      expect((await write(fresh, take)).status).toBe(201);
      expect(downloadDigest(await download(fresh))).toBe(artifactDigest);
    });
  });
}

function mib(bytes: number): number {
  return Math.round((bytes / MiB) * 10) / 10;
}

function tally(answers: Array<{ status: number }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

hostileSession('postgres');
hostileSession('s3');
