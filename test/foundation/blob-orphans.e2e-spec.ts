import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BLOB_ORPHAN_GRACE_MS, BlobOrphanSweep, ManualClock } from '@app/core';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { freePort, ServiceProcess, startWorkerProcess } from '../support/processes';
import { LocalS3, startLocalS3 } from '../support/s3-server';
import { setUpSuite } from '../support/suite';

/**
 * No stored object without a row (docs/operations.md, "Object storage"): a process killed with
 * SIGKILL between a put and the commit of the row that names the object — an upload in the api, a
 * generation's files in the worker — leaves, with the bucket, an object that its ledger record
 * still names, and the orphan sweep (`blobs.purge-orphans`) deletes it once the grace period has
 * passed; with the PostgreSQL store the bytes roll back with the row, and the sweep has nothing
 * to do. The process is held right after its put by a row lock this test takes on the
 * organization's usage counters, which the same transaction updates next.
 */
describe.each(['s3', 'postgres'] as const)('a process killed between put and commit (BLOB_STORE=%s)', (store) => {
  let dir: string;
  let s3: LocalS3 | null = null;
  let client: S3Client | null = null;
  beforeAll(async () => {
    if (store !== 's3') return;
    dir = mkdtempSync(join(tmpdir(), 'ss-orphans-'));
    chmodSync(dir, 0o755);
    s3 = await startLocalS3(dir);
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.config.S3_ACCESS_KEY_ID, secretAccessKey: s3.config.S3_SECRET_ACCESS_KEY },
    });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const storeConfig = (): Record<string, string> => (s3 ? { ...s3.config } : { BLOB_STORE: 'postgres' });
  // The sweep runs here, in the test's api, on a clock the test moves past the grace period.
  const clock = new ManualClock(Date.now());
  const suite = setUpSuite(() => ({ api: { config: storeConfig(), clock } }));
  const processes: ServiceProcess[] = [];
  // Each case reads the grace period from now: the processes under test write on the real clock.
  beforeEach(() => clock.set(Date.now()));
  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
  });

  const db = () => suite.api.app.get(DataSource);
  const count = async (sql: string, params: unknown[] = []) => (await db().query<{ n: number }[]>(sql, params))[0].n;
  const objects = async (prefix: string) =>
    client ? ((await client.send(new ListObjectsV2Command({ Bucket: s3!.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!) : [];
  const blobRows = (prefix: string) => count(`SELECT count(*)::int AS n FROM blobs WHERE key LIKE $1`, [`${prefix}%`]);
  const ledger = (prefix: string) => count(`SELECT count(*)::int AS n FROM pending_blobs WHERE key LIKE $1`, [`${prefix}%`]);
  const sweep = () => suite.api.app.get(BlobOrphanSweep).purgeOrphans();

  /**
   * Holds the organization's usage row for today locked, in a transaction of the test's own, until
   * `release`: a transaction that then updates it (after its put) waits there.
   */
  async function holdUsage(): Promise<{ release: () => Promise<void> }> {
    const pg = new Client({ connectionString: suite.env.databaseUrl });
    await pg.connect();
    await pg.query('BEGIN');
    await pg.query(
      `INSERT INTO usage_days (organization_id, day) VALUES ($1, (now() AT TIME ZONE 'UTC')::date)
       ON CONFLICT (organization_id, day) DO UPDATE SET organization_id = EXCLUDED.organization_id`,
      [suite.org.organizationId],
    );
    return {
      release: async () => {
        await pg.query('ROLLBACK');
        await pg.end();
      },
    };
  }

  /** The backend of the process under test, waiting for the usage row after its put. */
  async function blockedBackend(): Promise<number> {
    const waiting = await pollUntil(
      () =>
        db().query<{ pid: number }[]>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%usage_days%'`,
        ),
      (rows) => rows.length === 1,
      { what: 'the transaction to wait for the usage row after its put', timeoutMs: 60_000 },
    );
    return waiting[0].pid;
  }

  /** Once the killed process's backend has noticed it is gone and rolled back. */
  async function rolledBack(pid: number): Promise<void> {
    await pollUntil(
      () => count(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1`, [pid]),
      (n) => n === 0,
      { what: "the killed process's transaction to roll back", timeoutMs: 30_000 },
    );
  }

  /** A transaction still in flight holds its record: never swept, however old it is. */
  async function expectInFlightKept(prefix: string): Promise<void> {
    clock.advance(BLOB_ORPHAN_GRACE_MS + 60_000);
    expect(await sweep()).toEqual({ deleted: 0 });
    expect(await objects(prefix)).toHaveLength(store === 's3' ? 1 : 0);
    clock.set(Date.now());
  }

  async function expectSweptAfterGrace(prefix: string, orphans: number): Promise<void> {
    // Within the grace period the record stands.
    expect(await sweep()).toEqual({ deleted: 0 });
    expect(await ledger(prefix)).toBe(orphans);
    clock.advance(BLOB_ORPHAN_GRACE_MS + 60_000);
    expect((await sweep()).deleted).toBeGreaterThanOrEqual(orphans);
    expect(await ledger(prefix)).toBe(0);
    expect(await objects(prefix)).toEqual([]);
    expect(await blobRows(prefix)).toBe(0);
  }

  it('an upload: the api process killed after storing the photo, before its row commits', async () => {
    const api = new ServiceProcess('api', {
      ...suite.env.config,
      ...storeConfig(),
      API_PORT: String(await freePort()),
      API_OPS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    processes.push(api);
    await api.waitForOutput(/api listening on/);
    const url = /api listening on ([\d.]+):(\d+)/.exec(api.stdout + api.stderr)!;
    const assetsBefore = await count(`SELECT count(*)::int AS n FROM image_assets`);
    const held = await holdUsage();
    let pid: number;
    try {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await image('png', 1280, 720))], { type: 'image/png' }), 'photo.png');
      const upload = fetch(`http://${url[1]}:${url[2]}/v1/image-assets`, {
        method: 'POST',
        headers: { authorization: suite.org.auth.Authorization },
        body: form,
      }).catch((e: unknown) => e);
      pid = await blockedBackend();
      // The photo is in the bucket (and its record in the ledger); its row is not committed.
      if (store === 's3') {
        expect(await objects('image-assets/')).toHaveLength(1);
        expect(await ledger('image-assets/')).toBe(1);
      }
      await expectInFlightKept('image-assets/');
      await api.stop('SIGKILL');
      // The client saw its connection drop, not an answer.
      expect(String(await upload)).toMatch(/fetch failed/);
    } finally {
      await held.release();
    }
    await rolledBack(pid);

    expect(await count(`SELECT count(*)::int AS n FROM image_assets`)).toBe(assetsBefore);
    // The bucket kept the photo that nothing names; PostgreSQL rolled its bytes back with the row.
    expect(await objects('image-assets/')).toHaveLength(store === 's3' ? 1 : 0);
    expect(await blobRows('image-assets/')).toBe(0);
    await expectSweptAfterGrace('image-assets/', store === 's3' ? 1 : 0);
  });

  it("a generation: the worker process killed after storing the scene's files, before its version commits", async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'A harbour at dawn' });
    expect(created.status).toBe(202);
    const op = await db().query<{ scene_id: string }[]>(`SELECT scene_id FROM operations WHERE id = $1`, [created.body.operationId]);
    const prefix = `scenes/${op[0].scene_id}/`;
    const held = await holdUsage();
    let pid: number;
    try {
      const worker = await startWorkerProcess(suite.env, storeConfig());
      processes.push(worker);
      pid = await blockedBackend();
      if (store === 's3') {
        expect(await objects(prefix)).toEqual([`${prefix}v1/mesh.glb`]);
        expect(await ledger(prefix)).toBe(1);
      }
      await expectInFlightKept(prefix);
      await worker.stop('SIGKILL');
    } finally {
      await held.release();
    }
    await rolledBack(pid);

    expect(await count(`SELECT count(*)::int AS n FROM scene_artifacts WHERE scene_id = $1`, [op[0].scene_id])).toBe(0);
    expect(await objects(prefix)).toHaveLength(store === 's3' ? 1 : 0);
    expect(await blobRows(prefix)).toBe(0);
    await expectSweptAfterGrace(prefix, store === 's3' ? 1 : 0);
  });
});
