import { OperationTimeoutError, SceneStudioClient, SceneStudioError, type FinishedOperation } from '@scene-studio/client';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { setUpSuite } from '../support/suite';

const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * @scene-studio/client (packages/client) against the real api and worker: every helper a
 * partner uses, as examples/partner-app uses them. The retry and polling rules in detail are in
 * packages/client/src/client.spec.ts.
 */
describe('typed client against the api', () => {
  const suite = setUpSuite({ worker: {} });
  let sut: SceneStudioClient;

  beforeAll(() => {
    sut = new SceneStudioClient({ apiKey: suite.org.apiKey, baseUrl: suite.api.url });
  });

  describe('uploadImage', () => {
    it('uploads from a path, a Buffer and a stream, each answered with the bytes’ own digest', async () => {
      const png = await image('png', 1920, 1080);
      const path = join(mkdtempSync(join(tmpdir(), 'client-upload-')), 'source.png');
      writeFileSync(path, png);
      const jpeg = await image('jpeg', 1280, 720);

      const fromPath = await sut.uploadImage(path);
      const fromBuffer = await sut.uploadImage(png, { filename: 'a.png', contentType: 'image/png' });
      const fromStream = await sut.uploadImage(Readable.from([jpeg.subarray(0, 100), jpeg.subarray(100)]));

      for (const asset of [fromPath, fromBuffer]) {
        expect(asset).toMatchObject({ imageAssetId: expect.stringMatching(ID('img')), format: 'png', width: 1920, height: 1080 });
        expect(asset).toMatchObject({ sizeBytes: png.length, sha256: sha256(png), status: 'unattached', usableAsSceneSource: true });
      }
      expect(fromStream).toMatchObject({ format: 'jpeg', width: 1280, height: 720, sizeBytes: jpeg.length, sha256: sha256(jpeg) });
      expect(await sut.getImageAsset(fromPath.imageAssetId)).toEqual(fromPath);
    });

    it('throws the api’s problem for bytes that are not an image, whatever the name says', async () => {
      const e = await sut
        .uploadImage(Buffer.from('not an image at all'), { filename: 'x.png', contentType: 'image/png' })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SceneStudioError);
      expect(e).toMatchObject({ status: 422, code: 'unsupported_image_format', requestId: expect.any(String) });
    });
  });

  describe('createScene and waitForOperation', () => {
    it('creates from an uploaded source and waits for the scene, reporting progress that never goes back', async () => {
      const source = await sut.uploadImage(await image('png', 1920, 1080));
      const created = await sut.createScene({ prompt: 'A harbour at dawn', sourceAssetId: source.imageAssetId, externalRef: 'client-1' });
      expect(created).toMatchObject({ operationId: expect.stringMatching(ID('op')), status: 'processing', replayed: false });

      const progress: number[] = [];
      const done = await sut.waitForOperation(created.operationId, { timeoutMs: 60_000, onProgress: (p) => progress.push(p.progress) });
      expect(done).toMatchObject({
        operationId: created.operationId,
        status: 'succeeded',
        sceneId: expect.stringMatching(ID('scn')),
        version: 1,
      });
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      const scene = await sut.getScene(done.sceneId!);
      expect(scene).toMatchObject({ sceneId: done.sceneId, externalRef: 'client-1', status: 'ready', operationId: created.operationId });
      expect(await sut.getImageAsset(source.imageAssetId)).toMatchObject({ status: 'attached', expiresAt: null });
    });

    it('replays the first answer for a stored Idempotency-Key instead of creating a twin', async () => {
      const idempotencyKey = randomUUID();
      const first = await sut.createScene({ prompt: 'A desert canyon', idempotencyKey });
      const again = await sut.createScene({ prompt: 'A desert canyon', idempotencyKey });
      expect(again).toEqual({ ...first, replayed: true });
      expect(first.replayed).toBe(false);
      await expect(sut.createScene({ prompt: 'Another prompt', idempotencyKey })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    });

    it('cancels an operation: it ends failed with the retryable cancelled error', async () => {
      const created = await sut.createScene({ prompt: 'A city street in the rain' });
      const cancelled = await sut.cancelOperation(created.operationId);
      // The worker may have finished it first; either way the operation has ended.
      const done: FinishedOperation = await sut.waitForOperation(cancelled.operationId, { timeoutMs: 60_000 });
      if (done.status === 'failed') expect(done.error).toMatchObject({ code: 'cancelled', retryable: true });
      else expect(done.status).toBe('succeeded');
    });
  });

  describe('recovery by externalRef', () => {
    it('after a crash that lost the operation id, resumes the scene instead of creating another', async () => {
      const ref = `order-${randomUUID()}`;
      // The create that "crashed": sent, answered, but its answer never stored.
      const lost = await sut.createScene({ prompt: 'A lighthouse in a storm', externalRef: ref });

      const resumed = await sut.createOrResumeScene({ prompt: 'A lighthouse in a storm', externalRef: ref });
      expect(resumed).toMatchObject({ operationId: lost.operationId, resumed: true, scene: { externalRef: ref }, idempotencyKey: null });

      const fresh = await sut.createOrResumeScene({ prompt: 'A quiet library', externalRef: `order-${randomUUID()}` });
      expect(fresh).toMatchObject({ resumed: false, scene: null, idempotencyKey: expect.any(String) });
      expect(fresh.operationId).not.toBe(lost.operationId);
    });

    it('two racing creates for one reference end on one scene: the loser resumes the winner', async () => {
      const ref = `order-${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 4 }, () => sut.createOrResumeScene({ prompt: 'A windmill on a hill', externalRef: ref })),
      );
      expect(new Set(results.map((r) => r.operationId)).size).toBe(1);
      expect(results.filter((r) => !r.resumed)).toHaveLength(1);
    });

    it('finds nothing for an unknown reference, and frees the reference once its scene is deleted', async () => {
      expect(await sut.findSceneByExternalRef(`nobody-${randomUUID()}`)).toBeNull();
      const ref = `order-${randomUUID()}`;
      const { operationId } = await sut.createOrResumeScene({ prompt: 'A forest clearing', externalRef: ref });
      const done = await sut.waitForOperation(operationId, { timeoutMs: 60_000 });
      await sut.deleteScene(done.sceneId!);
      expect(await sut.findSceneByExternalRef(ref)).toBeNull();
      expect((await sut.createOrResumeScene({ prompt: 'A forest clearing', externalRef: ref })).resumed).toBe(false);
    });
  });

  describe('embed sessions', () => {
    it('creates a session whose secret is only in the URL fragment, and revokes it', async () => {
      const { operationId } = await sut.createScene({ prompt: 'A mountain lake' });
      const { sceneId } = await sut.waitForOperation(operationId, { timeoutMs: 60_000 });
      const session = await sut.createEmbedSession({ sceneId: sceneId!, origin: 'http://localhost:4321', mode: 'perform' });
      expect(session).toMatchObject({
        embedSessionId: expect.stringMatching(ID('es')),
        sceneId,
        mode: 'perform',
        origin: 'http://localhost:4321',
      });
      const url = new URL(session.url);
      expect(url.pathname).toBe(`/embed/${session.embedSessionId}`);
      expect(url.hash.length).toBeGreaterThan(20);
      expect(url.search).toBe('');
      await sut.revokeEmbedSession(session.embedSessionId);
    });

    it('throws origin_not_allowed for an origin the organization has not approved', async () => {
      const { operationId } = await sut.createScene({ prompt: 'A night market' });
      const { sceneId } = await sut.waitForOperation(operationId, { timeoutMs: 60_000 });
      await expect(sut.createEmbedSession({ sceneId: sceneId!, origin: 'https://elsewhere.example', mode: 'edit' })).rejects.toMatchObject({
        status: 422,
        code: 'origin_not_allowed',
      });
    });
  });

  describe('webhook endpoints', () => {
    it('lists every endpoint across pages, and throws limit_exceeded past the organization’s 20', async () => {
      const created = await sut.createWebhookEndpoint({ url: 'http://localhost:4567/hooks', events: ['scene.deleted'] });
      // 149 more, as an organization may hold from before the limit existed: two pages of 100.
      await suite.api.app.get(DataSource).query(
        `INSERT INTO webhook_endpoints (id, organization_id, url, allow_loopback, events, secret_sealed, created_at, updated_at)
         SELECT 'whe_01JD3Z8Q4W6K2M9T5X7B1C' || lpad(n::text, 4, '0'), $1, 'http://localhost:4567/hooks', true,
                '{scene.deleted}', 'v1.sealed', now(), now()
           FROM generate_series(1, 149) AS n`,
        [suite.org.organizationId],
      );
      const listed = await sut.listWebhookEndpoints();
      expect(listed).toHaveLength(150);
      expect(new Set(listed.map((e) => e.webhookEndpointId)).size).toBe(150);
      expect(listed.map((e) => e.webhookEndpointId)).toContain(created.webhookEndpointId);
      expect(JSON.stringify(listed)).not.toContain('whsec_');
      await expect(sut.createWebhookEndpoint({ url: 'http://localhost:4567/hooks', events: ['scene.deleted'] })).rejects.toMatchObject({
        status: 409,
        code: 'limit_exceeded',
      });
    });
  });

  it('throws unauthenticated for a key the api does not know', async () => {
    const stranger = new SceneStudioClient({ apiKey: 'sk_test_unknownunknownunknownunknown', baseUrl: suite.api.url });
    await expect(stranger.findSceneByExternalRef('x')).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});

/** No worker here: operations stay processing. */
describe('typed client under the rate limit, without a worker', () => {
  const suite = setUpSuite({ api: { config: { RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '2' } } });

  it('times out with OperationTimeoutError while the operation is still processing, having polled it', async () => {
    const sut = new SceneStudioClient({ apiKey: suite.org.apiKey, baseUrl: suite.api.url, retry: { maxAttempts: 10 } });
    const created = await sut.createScene({ prompt: 'A glacier under aurora' });
    const progress: Array<string | null> = [];
    const e = await sut
      .waitForOperation(created.operationId, { timeoutMs: 1500, onProgress: (p) => progress.push(p.stage) })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OperationTimeoutError);
    expect(e).toMatchObject({ operationId: created.operationId, timeoutMs: 1500 });
    expect(progress).toEqual(['queued']);
  });

  it('waits out 429 by its Retry-After and creates each scene once, with one key per scene', async () => {
    const waits: number[] = [];
    const sut = new SceneStudioClient({
      apiKey: suite.org.apiKey,
      baseUrl: suite.api.url,
      retry: { maxAttempts: 10 },
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((r) => setTimeout(r, ms));
      },
    });
    const created = [];
    for (const prompt of ['one', 'two', 'three', 'four']) created.push(await sut.createScene({ prompt: `A scene number ${prompt}` }));
    expect(new Set(created.map((c) => c.operationId)).size).toBe(4);
    expect(created.every((c) => !c.replayed)).toBe(true);
    // Four creates in a budget of two per two seconds: at least one wait, each a whole Retry-After.
    expect(waits.length).toBeGreaterThanOrEqual(1);
    for (const ms of waits) expect(ms % 1000).toBe(0);
  });
});
