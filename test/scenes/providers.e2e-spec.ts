import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { MeshyFake } from '../support/fakes/meshy-fake';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { pollUntil } from '../support/poll';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Real generators, end to end, against local fake servers written from each provider's public
 * documentation: the partner creates a scene through the api, a worker process (GENERATOR=worldlabs
 * or meshy) submits it, polls the job while the fake "generates", is killed mid-way and replaced,
 * and the result lands as a version whose files the studio serves. No network.
 */
describe('real generators through the whole service', () => {
  let worldLabs: FakeWorldLabs;
  let meshy: MeshyFake;

  beforeAll(async () => {
    worldLabs = await FakeWorldLabs.start({ jobDurationMs: 3000 });
    meshy = await MeshyFake.start();
    meshy.taskDurationMs = 1500;
  });
  afterAll(async () => {
    await worldLabs?.close();
    await meshy?.close();
  });

  const suite = setUpSuite({ studio: {} });
  const db = () => suite.api.app.get(DataSource);
  const providerJobOf = async (operationId: string) => (await stored(db()).operation(operationId)).providerJob;

  const worker = (generator: 'worldlabs' | 'meshy') =>
    startWorkerProcess(
      suite.env,
      (generator === 'worldlabs' ? worldLabs : meshy).workerConfig({ WORKER_LOCK_DURATION_MS: '1500', WORKER_STALLED_INTERVAL_MS: '500' }),
    );

  /** The files of a scene's version as the studio lists them, each fetched and checked against its digest. */
  async function studioFiles(sceneId: string, version: number) {
    const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    const list = await suite.studio.http().get(`/studio-api/v1/scene/versions/${version}/artifacts`).set(bearer);
    expect(list.status).toBe(200);
    const files: Record<string, { contentType: string; bytes: Buffer }> = {};
    for (const a of list.body.artifacts as { kind: string; contentType: string; bytes: number; sha256: string }[]) {
      const res = await suite.studio
        .http()
        .get(`/studio-api/v1/scene/versions/${version}/artifacts/${a.kind}`)
        .set(bearer)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(a.contentType);
      expect(res.headers['cache-control']).toBe('no-store');
      const bytes = res.body as Buffer;
      expect({ kind: a.kind, bytes: bytes.length, sha256: sha256(bytes) }).toEqual({ kind: a.kind, bytes: a.bytes, sha256: a.sha256 });
      files[a.kind] = { contentType: a.contentType, bytes };
    }
    return files;
  }

  it.each(['worldlabs', 'meshy'] as const)(
    '%s: processing with rising progress, a worker killed mid-way, no second submit, and the files served to the studio',
    async (generator) => {
      const submitsBefore = generator === 'worldlabs' ? worldLabs.submits : meshy.creates.preview;
      let first: ServiceProcess | null = await worker(generator);
      let second: ServiceProcess | null = null;
      try {
        const created = await createScene(suite.api, suite.org, { prompt: `a lighthouse on a cliff, by ${generator}` });
        const id = created.body.operationId;
        await pollUntil(
          () => providerJobOf(id),
          (job) => job !== null,
          { what: 'the provider job to be recorded' },
        );
        // Rising progress while the provider works, never going down.
        const seen: number[] = [];
        await pollUntil(
          async () => {
            const op = (await suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth)).body;
            if (op.status === 'processing') {
              expect(op.stage).toMatch(/^(generating|downloading|storing)$/);
              if (seen.length === 0 || op.progress !== seen[seen.length - 1]) seen.push(op.progress);
            }
            return seen;
          },
          (values) => values.length >= 3 || values.some((p) => p > 0.5),
          { what: 'progress to rise', intervalMs: 100 },
        );
        expect([...seen].sort((a, b) => a - b)).toEqual(seen);

        const killed = await first.stop('SIGKILL');
        expect(killed.signal).toBe('SIGKILL');
        const killedOutput = first.stdout + first.stderr;
        first = null;
        second = await worker(generator);
        const done = await awaitOperation(suite.api, suite.org, id, 30_000);
        expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
        const submits = (generator === 'worldlabs' ? worldLabs.submits : meshy.creates.preview) - submitsBefore;
        expect(submits).toBe(1);

        const files = await studioFiles(done.body.sceneId, 1);
        if (generator === 'worldlabs') {
          expect(Object.keys(files).sort()).toEqual(['collider', 'panorama', 'splat', 'thumbnail']);
          expect(files.splat.contentType).toBe('application/vnd.niantic.spz');
          expect(files.splat.bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
          expect(files.collider.bytes.subarray(0, 4).toString('latin1')).toBe('glTF');
        } else {
          expect(Object.keys(files).sort()).toEqual(['mesh', 'thumbnail']);
          expect(files.mesh.bytes.subarray(0, 4).toString('latin1')).toBe('glTF');
        }
        expect(files.thumbnail.contentType).toMatch(/^image\/(png|jpeg|webp)$/);
        // The provider's key is in no log line of either worker.
        const apiKey = generator === 'worldlabs' ? worldLabs.apiKey : meshy.apiKey;
        expect(killedOutput + second.stdout + second.stderr).not.toContain(apiKey);
      } finally {
        await first?.stop('SIGKILL');
        await second?.stop('SIGTERM');
      }
    },
  );

  it.each(['worldlabs', 'meshy'] as const)('%s: a cancelled generation ends at once and writes nothing later', async (generator) => {
    const w = await worker(generator);
    try {
      const created = await createScene(suite.api, suite.org, {
        prompt: `a cancelled world by ${generator}`,
        externalRef: `cancel-${generator}`,
      });
      const id = created.body.operationId;
      const job = await pollUntil(
        () => providerJobOf(id),
        (j) => j !== null,
        { what: 'the provider job to be recorded' },
      );
      const res = await suite.api.http().post(`/v1/operations/${id}:cancel`).set(suite.org.auth);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
      if (generator === 'meshy') {
        // Meshy can cancel (a DELETE of the task); the worker does it as soon as its job wakes.
        await pollUntil(
          async () => meshy.deleted,
          (deleted) => deleted.includes(job!.id),
          { what: 'the Meshy task to be deleted' },
        );
      } else {
        // Marble cannot: its job runs to the end, and its result is never stored.
        worldLabs.finish(job!.id);
      }
      const { sceneId } = await stored(db()).operation(id);
      // Give the worker's poll time to see the finished provider job; nothing may be written.
      await pollUntil(
        () => stored(db()).operation(id),
        (row) => row.providerCancelledAt !== null,
        { what: 'the worker to handle the cancelled job' },
      );
      expect(await stored(db()).sceneVersionCount(sceneId)).toBe(0);
      expect((await suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth)).body.status).toBe('failed');
    } finally {
      await w.stop('SIGTERM');
    }
  });
});
