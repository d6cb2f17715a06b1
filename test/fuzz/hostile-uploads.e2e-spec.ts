import { BlobEntity } from '@app/core/blob-store/blob.entity';
import { ImageAssetEntity } from '@app/image-assets/image-asset.entity';
import { writeFileSync } from 'node:fs';
import { DataSource, In } from 'typeorm';
import { CRAFTED_MARKER, craftedImages } from '../factories/crafted-images';
import { image, METADATA_MARKER } from '../factories/images';
import { pollUntil } from '../support/poll';
import { freePort, runCli, ServiceProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { CaseContext, uploadCases } from './multipart-cases';
import { CampaignFigures, runUploadCampaign } from './upload-campaign';

/**
 * Hostile multipart uploads against one api process of the build (issue 23): property-based
 * bodies (boundaries, part headers, nesting, truncation, chunking, pauses, stalls and client
 * resets at every phase), thousands of them at once, some carrying files crafted against the
 * metadata walkers (issue 34: planted text, frames nested 100 000 deep, unknown critical
 * chunks). Afterwards the process must still run, answer /readyz, and hold no upload slot, no
 * timer, no connection, its memory must settle, and no stored file may hold what was planted.
 *
 * `npm test` runs a short campaign: two fixed seeds and one drawn for the run (printed on
 * failure, so it can be replayed). `npm run fuzz:long -- --seeds N` runs N seeds drawn at random
 * through SS_FUZZ_SEEDS, SS_FUZZ_REQUESTS and SS_FUZZ_REPORT (scripts/fuzz-long.js).
 */
const RUN_SEED = Number(process.env.SS_FUZZ_SEED_BASE ?? Math.floor(Math.random() * 2 ** 31));
const SEEDS = process.env.SS_FUZZ_SEEDS ? process.env.SS_FUZZ_SEEDS.split(',').map(Number) : [20261127, 424242, RUN_SEED];
const REQUESTS_PER_SEED = Number(process.env.SS_FUZZ_REQUESTS ?? 800);
const CONCURRENCY = Number(process.env.SS_FUZZ_CONCURRENCY ?? 48);
const IDLE_TIMEOUT_SECONDS = 1;

jest.setTimeout(Math.max(180_000, SEEDS.length * REQUESTS_PER_SEED * 100));

interface Metrics {
  timers: number;
  slots: number;
  waiting: number;
  connections: number;
  heapUsed: number;
  rss: number;
}

describe('POST /v1/image-assets under hostile multipart bodies (one api process)', () => {
  const suite = setUpSuite({ api: false, org: false });
  let api: ServiceProcess;
  let port: number;
  let opsPort: number;
  let apiKey: string;
  let ctx: CaseContext;
  let baseline: Metrics;

  async function metrics(): Promise<Metrics> {
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    return {
      // Ref'd timers only: Node lists an unref'd timer (a pool's idle reaper) nowhere here.
      timers: value(/^nodejs_active_resources\{type="Timeout"\} (\d+)$/m),
      slots: value(/^upload_slots_in_use (\d+)$/m),
      waiting: value(/^uploads_waiting (\d+)$/m),
      connections: value(/^http_open_connections (\d+)$/m),
      heapUsed: value(/^nodejs_heap_size_used_bytes (\d+)$/m),
      rss: value(/^process_resident_memory_bytes (\d+)$/m),
    };
  }

  function alive(): void {
    if (api.child.exitCode !== null || api.child.signalCode !== null) {
      throw new Error(`the api process ended (${api.child.exitCode ?? api.child.signalCode}):\n${api.stderr.slice(-3000)}`);
    }
  }

  /** Waits until the process holds no more than it did at rest: no slot, no waiter, no connection, no extra timer. */
  async function settled(what: string): Promise<Metrics> {
    return pollUntil(
      async () => {
        alive();
        return metrics();
      },
      (m) => m.slots === 0 && m.waiting === 0 && m.connections === 0 && m.timers <= baseline.timers,
      { timeoutMs: 30_000, intervalMs: 250, what },
    );
  }

  async function validUpload(): Promise<number> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(ctx.images[0])], { type: 'image/png' }), 'a.png');
    const res = await fetch(`http://127.0.0.1:${port}/v1/image-assets`, {
      method: 'POST',
      // Not kept alive: the connection count must fall back to zero.
      headers: { authorization: `Bearer ${apiKey}`, connection: 'close' },
      body: form,
    });
    await res.arrayBuffer();
    return res.status;
  }

  beforeAll(async () => {
    [port, opsPort] = [await freePort(), await freePort()];
    const env = { DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix };
    const org = await runCli(['org', 'create', '--name', 'Hostile uploads', '--test', '--json'], env);
    apiKey = (JSON.parse(org.stdout) as { apiKey: string }).apiKey;
    api = new ServiceProcess('api', {
      ...env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      API_PORT: String(port),
      API_OPS_PORT: String(opsPort),
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '5',
      RATE_LIMIT_REQUESTS: '1000000',
      // Sixteen slots for the campaign's one organization (default 4, 2 per organization): 48
      // connections still queue for them, but the uploads that stall or arrive cut, each holding
      // its slot for the idle timeout, no longer wait two at a time (the campaign: 117 s → 47 s).
      UPLOAD_CONCURRENCY: '16',
      UPLOAD_SLOTS_PER_ORGANIZATION: '16',
      UPLOAD_IDLE_TIMEOUT_SECONDS: String(IDLE_TIMEOUT_SECONDS),
      UPLOAD_BODY_TIMEOUT_SECONDS: '5',
      HTTP_HEADERS_TIMEOUT_SECONDS: '2',
      // Long enough that a queue of stalled uploads never turns into 503s: the campaign counts 5xx.
      UPLOAD_QUEUE_TIMEOUT_SECONDS: '300',
    });
    // Quiet (warn): request lines would cost the campaign CPU. Ready once its ops port answers.
    await pollUntil(
      async () => {
        alive();
        return fetch(`http://127.0.0.1:${opsPort}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
      },
      (status) => status === 200,
      { timeoutMs: 30_000, intervalMs: 200, what: 'the api to be ready' },
    );
    ctx = {
      apiKey,
      images: [
        await image('png', 48, 27, { noise: true }),
        await image('jpeg', 64, 36, { noise: true }),
        await image('webp', 32, 18),
        await image('png', 320, 180, { noise: true }),
      ],
      crafted: (await craftedImages()).map((c) => ({ bytes: c.bytes, status: c.expect })),
      stallMs: IDLE_TIMEOUT_SECONDS * 1000 + 500,
    };
    // Warm: sharp loaded, the database pool and the key cache in use, before the baseline.
    for (let i = 0; i < 4; i++) expect(await validUpload()).toBe(201);
    baseline = await pollUntil(metrics, (m) => m.connections === 0 && m.slots === 0, { what: 'the api at rest' });
  });

  afterAll(async () => {
    await api?.stop();
  });

  it("the request shape that ended the api: a Content-Type that multer's own parser skips is 400, and no timer outlives it", async () => {
    const body =
      '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nhello\r\n--x--\r\n';
    const res = await fetch(`http://127.0.0.1:${port}/v1/image-assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'multipart/form-data;boundary=x;', connection: 'close' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'bad_request', detail: expect.stringContaining('boundary') });
    // The upload's idle timer used to outlive the request and, when it fired, end the process.
    await settled('every timer of the request to be cleared');
    expect(await validUpload()).toBe(201);
    alive();
  });

  it(`${SEEDS.length} seeds × ${REQUESTS_PER_SEED} hostile uploads, ${CONCURRENCY} at once, leave the api running with nothing held`, async () => {
    const all: CampaignFigures[] = [];
    for (const seed of SEEDS) {
      const figures = await runUploadCampaign(port, uploadCases(seed, REQUESTS_PER_SEED, ctx), {
        concurrency: CONCURRENCY,
        deadlineMs: 60_000,
        secrets: [apiKey],
        label: `seed ${seed}`,
      });
      all.push(figures);
      alive();
    }
    const after = await settled('the uploads of the campaign to let go of every slot, timer and connection');
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { connection: 'close' } });
    expect(ready.status).toBe(200);
    expect(await validUpload()).toBe(201);
    // V8 collects lazily: the heap is judged once it has had the chance to shrink back.
    const memory = await pollUntil(metrics, (m) => m.heapUsed <= baseline.heapUsed + 48 * 1024 * 1024, {
      timeoutMs: 60_000,
      intervalMs: 1000,
      what: 'the heap to settle back near its baseline',
    });
    const statuses: Record<string, number> = {};
    for (const f of all) for (const [k, v] of Object.entries(f.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    const report = {
      seeds: SEEDS,
      requests: all.reduce((n, f) => n + f.requests, 0),
      concurrency: CONCURRENCY,
      statuses,
      serverErrors: Object.entries(statuses)
        .filter(([k]) => k.startsWith('5'))
        .reduce((n, [, v]) => n + v, 0),
      failures: all.reduce((n, f) => n + f.failures.length, 0),
      crashes: 0,
      elapsedSeconds: Math.round(all.reduce((n, f) => n + f.elapsedMs, 0) / 100) / 10,
      memory: {
        baselineHeapMiB: mib(baseline.heapUsed),
        settledHeapMiB: mib(memory.heapUsed),
        baselineRssMiB: mib(baseline.rss),
        afterRssMiB: mib(after.rss),
      },
    };
    if (process.env.SS_FUZZ_REPORT) writeFileSync(process.env.SS_FUZZ_REPORT, JSON.stringify(report, null, 2));
    expect(all.flatMap((f) => f.failures).slice(0, 25)).toEqual([]);
    expect(report.serverErrors).toBe(0);
    // Every kind of answer was reached, so the campaign exercised more than one path.
    for (const status of ['201', '400', '401', '408', '415', '422', 'none']) expect(statuses[status]).toBeGreaterThan(0);
    await expectNothingPlantedStored();
  });

  /** Crafted files were stored (their uploads are counted by their size), and no stored file holds what was planted in them. */
  async function expectNothingPlantedStored(): Promise<void> {
    const db = new DataSource({ type: 'postgres', url: suite.env.databaseUrl, entities: [BlobEntity, ImageAssetEntity] });
    await db.initialize();
    try {
      const craftedSizes = ctx.crafted.filter((c) => c.status === 201).map((c) => c.bytes.length);
      expect(await db.getRepository(ImageAssetEntity).countBy({ sizeBytes: In(craftedSizes) })).toBeGreaterThan(0);
      for (const marker of [CRAFTED_MARKER, METADATA_MARKER]) {
        const holding = await db
          .getRepository(BlobEntity)
          .createQueryBuilder('blob')
          .where('position(:marker in blob.content) > 0', { marker: Buffer.from(marker, 'latin1') })
          .getCount();
        expect({ marker, holding }).toEqual({ marker, holding: 0 });
      }
    } finally {
      await db.destroy();
    }
  }

  it('SIGTERM while hostile uploads are in flight: the api drains them and exits cleanly', async () => {
    const campaign = runUploadCampaign(port, uploadCases(SEEDS[0] + 1, 300, ctx), {
      concurrency: CONCURRENCY,
      deadlineMs: 60_000,
      secrets: [apiKey],
      label: 'shutdown',
    });
    await pollUntil(metrics, (m) => m.slots > 0 && m.connections > 8, { intervalMs: 20, what: 'uploads in flight' });
    const exit = await api.stop('SIGTERM');
    // Nest closes the app, then re-raises the signal.
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    expect(api.stderr).not.toMatch(/Unhandled|throw er|uncaught/i);
    // The client side ends too: every connection was answered or closed, none left hanging.
    const figures = await campaign;
    expect(figures.requests).toBe(300);
  });
});

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
