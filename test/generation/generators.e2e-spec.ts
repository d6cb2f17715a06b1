import { HostResolver } from '@app/core';
import { FakeDnsServer } from '@app/core/testing';
import {
  GeneratedScene,
  GenerationError,
  GenerationRequest,
  HttpSceneGenerator,
  ProceduralSceneGenerator,
  SceneSpec,
  SourceImageInput,
} from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { Document, NodeIO } from '@gltf-transform/core';
import { validateBytes } from 'gltf-validator';
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import sharp from 'sharp';
import { image } from '../factories/images';
import { FakeGenerationProvider, PROVIDER_MARKER, ResultBehaviour, SubmitBehaviour } from '../support/fake-generation-provider';
import { pollUntil } from '../support/poll';

// No database and no apps here: generators are exercised directly, with the real sharp-backed
// ImageMedia, the real glTF tooling and, for the http provider, a real HTTP server.

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** NodeIO as a consumer would use it (see createGltfIO for why its init promise is observed). */
function nodeIO(): NodeIO {
  const io = new NodeIO();
  io.init().catch(() => undefined);
  return io;
}

async function readBack(glb: Buffer): Promise<Document> {
  return nodeIO().readBinary(new Uint8Array(glb));
}

async function expectValidGltf(glb: Buffer): Promise<void> {
  const report = await validateBytes(new Uint8Array(glb));
  expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  expect(report.issues.numErrors).toBe(0);
}

/** A 1920×1080 JPEG: warm on the left, cool on the right, lighter towards the bottom. */
async function gradientJpeg(): Promise<Buffer> {
  const width = 1920;
  const height = 1080;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const i = (y * width + x) * 3;
      raw[i] = Math.round(20 + 220 * (1 - u));
      raw[i + 1] = Math.round(60 + 120 * v);
      raw[i + 2] = Math.round(30 + 210 * u);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

function sourceOf(bytes: Buffer, format: SourceImageInput['format']): SourceImageInput {
  return { bytes, format, width: 1920, height: 1080, sha256: sha256(bytes) };
}

const request = (prompt: string, overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt,
  source: null,
  edit: null,
  // Each request its own key: the fake dedupes submits by it, as the protocol asks.
  idempotencyKey: `op_${randomUUID()}`,
  ...overrides,
});

/** The procedural generator's one file: its GLB. */
const glbOf = (scene: GeneratedScene): Buffer => scene.artifacts.find((a) => a.kind === 'mesh')!.bytes;

const PROMPTS = [
  'a dense forest at night',
  'desert dunes at sunset',
  'a rainy downtown street',
  'a beach on the coast with boats',
  'snowy mountains at dawn',
  'a fishing village by the lake in the fog',
  'a cat playing the piano',
];

describe('ProceduralSceneGenerator with the real image media', () => {
  const media = new SharpImageMedia();
  const sut = new ProceduralSceneGenerator(media);
  let gradient: SourceImageInput;

  beforeAll(async () => {
    gradient = sourceOf(await gradientJpeg(), 'jpeg');
  });

  describe.each(PROMPTS)('%p', (prompt) => {
    let scene: GeneratedScene;

    beforeAll(async () => {
      scene = await sut.generate(request(prompt));
    });

    it('is a valid glTF 2.0 binary according to the Khronos validator', async () => {
      await expectValidGltf(glbOf(scene));
    });

    it('holds meshes with materials, and a named camera node per preset', async () => {
      const doc = await readBack(glbOf(scene));
      const meshes = doc.getRoot().listMeshes();
      expect(meshes.length).toBeGreaterThanOrEqual(3);
      for (const mesh of meshes) {
        for (const primitive of mesh.listPrimitives()) {
          expect(primitive.getMaterial()).not.toBeNull();
          expect(primitive.getAttribute('POSITION')).not.toBeNull();
          expect(primitive.getAttribute('NORMAL')).not.toBeNull();
        }
      }
      expect(scene.spec.cameras.length).toBeGreaterThanOrEqual(3);
      const cameraNodes = doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getCamera());
      expect(cameraNodes.map((n) => [n.getName(), n.getCamera()!.getName()])).toEqual(scene.spec.cameras.map((c) => [c.id, c.name]));
      for (const node of cameraNodes) expect(node.getCamera()!.getType()).toBe('perspective');
      expect(doc.getRoot().listTextures()).toHaveLength(0);
    });

    it('stays small', () => {
      expect(glbOf(scene).length).toBeLessThan(2 * 1024 * 1024);
    });
  });

  it('reads the prompt: night is dark, the beach has boats on the water, the fog is there', async () => {
    const [night, beach, foggy] = await Promise.all([
      sut.generate(request('a dense forest at night')),
      sut.generate(request('a beach on the coast with boats')),
      sut.generate(request('a fishing village by the lake in the fog')),
    ]);
    expect(night.spec).toMatchObject({ biome: 'forest', timeOfDay: 'night' });
    expect(beach.spec.biome).toBe('ocean');
    expect(beach.spec.props.filter((p) => p.kind === 'boat').every((b) => b.position[1] === beach.spec.water!.level)).toBe(true);
    expect(foggy.spec.fog).not.toBeNull();
    expect(foggy.spec.water).not.toBeNull();
  });

  it('is deterministic: two generators give byte-identical spec and GLB, with and without a source', async () => {
    const other = new ProceduralSceneGenerator(new SharpImageMedia());
    for (const req of [request('snowy mountains at dawn'), request('a lake at sunset', { source: gradient })]) {
      const [a, b] = await Promise.all([sut.generate(req), other.generate(req)]);
      expect(JSON.stringify(a.spec)).toBe(JSON.stringify(b.spec));
      expect(glbOf(a).equals(glbOf(b))).toBe(true);
    }
  });

  it('gives different scenes for different prompts', async () => {
    const scenes = await Promise.all(PROMPTS.map((p) => sut.generate(request(p))));
    expect(new Set(scenes.map((s) => sha256(glbOf(s)))).size).toBe(PROMPTS.length);
    expect(new Set(scenes.map((s) => JSON.stringify(s.spec))).size).toBe(PROMPTS.length);
  });

  it('takes its palette from a 1920×1080 source, and writes no pixel of it into the GLB', async () => {
    const forest = await sut.generate(request('a forest by the lake', { source: gradient }));
    const { spec } = forest;
    const glb = glbOf(forest);
    await expectValidGltf(glb);
    expect(glb.length).toBeLessThan(2 * 1024 * 1024);

    expect(spec.backdrop).toMatchObject({ sourceSha256: gradient.sha256 });
    expect(spec.palette).toHaveLength(5);
    const rgb = spec.palette.map((h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]);
    expect(rgb.some(([r, , b]) => r > b + 60)).toBe(true); // the warm side
    expect(rgb.some(([r, , b]) => b > r + 60)).toBe(true); // the cool side

    // The file is served to perform sessions too, which may not see the source image.
    const doc = await readBack(glb);
    expect(doc.getRoot().listTextures()).toHaveLength(0);
    expect(
      doc
        .getRoot()
        .listMaterials()
        .map((m) => m.getName()),
    ).not.toContain('backdrop');
  });

  it('takes the exact colour of a flat source image as its palette', async () => {
    const flat = await image('png', 1920, 1080); // rgb(40, 90, 160)
    const { spec } = await sut.generate(request('a meadow', { source: sourceOf(flat, 'png') }));
    expect(spec.palette).toEqual(['#285aa0']);
  });

  it('applies edits and writes a valid GLB for the new version', async () => {
    const v1 = await sut.generate(request('a fishing village by the lake with boats', { source: gradient }));
    const instruction = 'make it night, add fog and remove the boats';
    const v2 = await sut.generate(request(v1.spec.prompt, { version: 2, source: gradient, edit: { previous: v1.spec, instruction } }));
    expect(v2.spec).toMatchObject({ timeOfDay: 'night', palette: v1.spec.palette });
    expect(v2.spec.fog).not.toBeNull();
    expect(v2.spec.props.some((p) => p.kind === 'boat')).toBe(false);
    expect(v2.spec.edits.map((e) => e.version)).toEqual([2]);
    await expectValidGltf(glbOf(v2));
    expect((await readBack(glbOf(v2))).getRoot().listTextures()).toHaveLength(0);

    const v3 = await sut.generate(
      request(v1.spec.prompt, { version: 3, source: gradient, edit: { previous: v2.spec, instruction: 'something unheard of' } }),
    );
    expect(v3.spec.edits).toEqual([...v2.spec.edits, { version: 3, instruction: 'something unheard of', changes: [] }]);
    expect(glbOf(v3).equals(glbOf(v2))).toBe(false);
    await expectValidGltf(glbOf(v3));
  });
});

describe('HttpSceneGenerator (protocol v2) against a fake provider', () => {
  const KEY = 'pk_test_3d1f0c';
  const procedural = new ProceduralSceneGenerator(new SharpImageMedia());
  let fake: FakeGenerationProvider;
  let source: SourceImageInput;
  /** The DNS of every host other than the provider's own (OUTBOUND_DNS_SERVERS in the service). */
  let dns: FakeDnsServer;

  const sut = (options: { timeoutMs?: number; maxArtifactBytes?: number; baseUrl?: string } = {}) =>
    new HttpSceneGenerator({
      baseUrl: options.baseUrl ?? fake.url,
      apiKey: KEY,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxArtifactBytes: options.maxArtifactBytes ?? 64 * 1024 * 1024,
      resolver: new HostResolver({ servers: [dns.server], timeoutMs: 500 }),
    });

  /** Submits, then polls until the job is no longer running; the poll's final answer and the job. */
  async function runToEnd(generator: HttpSceneGenerator, req: GenerationRequest) {
    const outcome = await generator.submit(req);
    if (!('job' in outcome)) throw new Error('expected a job');
    const last = await pollUntil(
      () => generator.poll(outcome.job),
      (p) => p.status !== 'running',
      { what: 'the job to finish' },
    );
    return { job: outcome.job, last };
  }

  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e,
    );

  /** Nothing the provider said, anywhere in the error (message, stack or cause), and never the key. */
  function expectSafe(error: unknown): void {
    expect(error).toBeInstanceOf(GenerationError);
    expect((error as Error).message).not.toContain(PROVIDER_MARKER);
    expect(inspect(error, { depth: 10 })).not.toContain(PROVIDER_MARKER);
    expect(inspect(error, { depth: 10 })).not.toContain(KEY);
  }

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(procedural);
    dns = await FakeDnsServer.start();
    source = sourceOf(await image('jpeg', 1920, 1080, { noise: true }), 'jpeg');
  });

  afterAll(async () => {
    await fake?.close();
    await dns?.close();
  });

  beforeEach(() => {
    fake.submitBehaviour = 'accept';
    fake.jobBehaviour = 'succeed';
    fake.jobDurationMs = 0;
    fake.result = 'ok';
    fake.pollsFailing = false;
    fake.fileOrigin = null;
    fake.redirectFilesTo = null;
    dns.answer = () => 'nxdomain';
  });

  it('submits the documented request with the bearer key and the Idempotency-Key, then fetches the checked result', async () => {
    const req = request('a beach at sunset', { source });
    const { job, last } = await runToEnd(sut(), req);
    expect(last).toEqual({ status: 'succeeded' });

    const submit = fake.submitsFor('a beach at sunset')[0];
    expect(submit).toMatchObject({ method: 'POST', path: '/v2/generations' });
    expect(submit.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(submit.headers['idempotency-key']).toBe(req.idempotencyKey);
    expect(submit.body).toEqual({
      sceneId: req.sceneId,
      version: 1,
      prompt: 'a beach at sunset',
      instruction: null,
      previousView: null,
      sourceImage: { format: 'jpeg', width: 1920, height: 1080, sha256: source.sha256, dataBase64: source.bytes.toString('base64') },
    });

    const result = await sut().fetch(job, req);
    const direct = await procedural.generate(req);
    expect(result.spec).toEqual(direct.spec);
    expect(result.artifacts.map((a) => [a.kind, a.contentType])).toEqual([['mesh', 'model/gltf-binary']]);
    expect(glbOf(result).equals(glbOf(direct))).toBe(true);
    // The file was fetched without the API key: it is a URL the provider handed out.
    const download = fake.requests.find((r) => r.path === `/files/${job.id}/mesh`)!;
    expect(download.headers.authorization).toBeUndefined();
  });

  it('a repeated submit with the same Idempotency-Key is the same job at the provider', async () => {
    const req = request('submitted twice', { idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0ZZZ' });
    const a = await sut().submit(req);
    const b = await sut().submit(req);
    expect(a).toEqual(b);
    expect(fake.submitsFor('submitted twice')).toHaveLength(2);
    expect(fake.jobsFor('submitted twice')).toHaveLength(1);
  });

  it("reports the job's progress while it runs, clamped to 0..1", async () => {
    fake.jobBehaviour = 'gated';
    fake.gatedProgress = 0.4;
    const outcome = await sut().submit(request('slow world'));
    if (!('job' in outcome)) throw new Error('expected a job');
    expect(await sut().poll(outcome.job)).toEqual({ status: 'running', progress: 0.4 });
    fake.gatedProgress = 7;
    expect(await sut().poll(outcome.job)).toEqual({ status: 'running', progress: 1 });
    fake.release();
    expect(await sut().poll(outcome.job)).toEqual({ status: 'succeeded' });
    fake.hold();
  });

  it('sends the instruction and the previous view for an edit', async () => {
    const v1 = await procedural.generate(request('a forest'));
    const req = request('a forest', { version: 2, edit: { previous: v1.spec, instruction: 'make it night' } });
    const { job } = await runToEnd(sut({ baseUrl: `${fake.url}/` }), req);
    expect(fake.submitsFor('a forest')[0].body).toMatchObject({
      version: 2,
      instruction: 'make it night',
      previousView: v1.spec,
      sourceImage: null,
    });
    const result = await sut().fetch(job, req);
    expect((result.spec as SceneSpec).timeOfDay).toBe('night');
  });

  it('a result without a view gets a neutral one framing nothing in particular', async () => {
    fake.result = 'no-view';
    const req = request('no view given');
    const { job } = await runToEnd(sut(), req);
    const result = await sut().fetch(job, req);
    expect(result.spec).toMatchObject({ schemaVersion: 1, prompt: 'no view given', fog: null, edits: [] });
    expect(result.spec.cameras.length).toBeGreaterThanOrEqual(1);
  });

  it('cancels a job at the provider; an unknown job is not an error', async () => {
    fake.jobBehaviour = 'never';
    const outcome = await sut().submit(request('to be cancelled'));
    if (!('job' in outcome)) throw new Error('expected a job');
    expect(await sut().cancel(outcome.job)).toBe(true);
    expect(fake.jobs.get(outcome.job.id)?.cancelled).toBe(true);
    expect(await sut().cancel({ id: 'gen_unknown' })).toBe(false);
    // A cancelled job reads as failed, should anyone poll it.
    expect(await sut().poll(outcome.job)).toMatchObject({ status: 'failed' });
  });

  describe('maps every failure to a safe GenerationError', () => {
    const submitCases: Array<[SubmitBehaviour, GenerationError['code'], boolean]> = [
      ['server-error', 'provider_unavailable', true],
      ['unavailable', 'provider_unavailable', true],
      ['rate-limited', 'provider_unavailable', true],
      ['bad-request', 'provider_rejected', false],
      ['unauthorized', 'provider_rejected', false],
      ['quota', 'provider_quota_exceeded', false],
      ['garbage-json', 'generation_failed', false],
      ['no-id', 'generation_failed', false],
    ];

    it.each(submitCases)('a submit answered %s → %s (retryable: %s)', async (behaviour, code, retryable) => {
      fake.submitBehaviour = behaviour;
      const error = await failureOf(sut().submit(request('a lake')));
      expect(error).toMatchObject({ code, retryable });
      expectSafe(error);
    });

    it('passes on the pause a rate-limited provider asks for', async () => {
      fake.submitBehaviour = 'rate-limited';
      expect(await failureOf(sut().submit(request('a lake')))).toMatchObject({ code: 'provider_unavailable', retryAfterMs: 7000 });
    });

    it('a job that fails at the provider → generation_failed in our words, retryable as the provider says', async () => {
      fake.jobBehaviour = 'fail';
      const { last } = await runToEnd(sut(), request('doomed job'));
      expect(last).toMatchObject({ status: 'failed', error: { code: 'generation_failed', retryable: true } });
      if (last.status === 'failed') expectSafe(last.error);
    });

    it('a provider briefly away while polling → provider_unavailable, retryable', async () => {
      fake.jobBehaviour = 'never';
      const outcome = await sut().submit(request('polled while away'));
      if (!('job' in outcome)) throw new Error('expected a job');
      fake.pollsFailing = true;
      const error = await failureOf(sut().poll(outcome.job));
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expectSafe(error);
    });

    const resultCases: Array<[ResultBehaviour, number]> = [
      ['corrupt-glb', 64 * 1024 * 1024],
      ['invalid-view', 64 * 1024 * 1024],
      ['no-files', 64 * 1024 * 1024],
      ['oversized', 1024 * 1024],
      ['oversized-chunked', 1024 * 1024],
    ];

    it.each(resultCases)('a result with %s → generation_failed, not retryable', async (behaviour, maxArtifactBytes) => {
      fake.result = behaviour;
      const req = request(`result ${behaviour}`);
      const { job } = await runToEnd(sut(), req);
      const error = await failureOf(sut({ maxArtifactBytes }).fetch(job, req));
      expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
      expectSafe(error);
    });

    it('a large file arriving steadily is not cut off by the call timeout; one that stalls is (provider_timeout)', async () => {
      fake.result = 'slow-file';
      const req = request('a slow download');
      const { job } = await runToEnd(sut(), req);
      // 800 ms of transfer against a 300 ms timeout: the timeout counts silence, not the whole transfer.
      const result = await sut({ timeoutMs: 300 }).fetch(job, req);
      expect(result.artifacts[0].bytes.subarray(0, 4).toString('latin1')).toBe('glTF');

      fake.result = 'stalled-file';
      const error = await failureOf(sut({ timeoutMs: 300 }).fetch(job, req));
      expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
    });

    it('times out a provider that never answers: provider_timeout, retryable', async () => {
      fake.submitBehaviour = 'hang';
      const error = await failureOf(sut({ timeoutMs: 300 }).submit(request('a lake')));
      expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
      expectSafe(error);
    });

    it('reports a provider that is not listening as provider_unavailable, retryable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const error = await failureOf(sut({ baseUrl: `http://127.0.0.1:${port}` }).submit(request('a lake')));
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true });
    });

    it('gives the same fixed message for every failure of a kind', async () => {
      fake.submitBehaviour = 'server-error';
      const a = (await failureOf(sut().submit(request('a')))) as GenerationError;
      fake.submitBehaviour = 'rate-limited';
      const b = (await failureOf(sut().submit(request('b')))) as GenerationError;
      expect(a.message).toBe(b.message);
      expect(a.message).toBe('The generation provider is unavailable. Try again later.');
    });
  });

  describe('reaches only public addresses on hosts other than its own', () => {
    const port = () => new URL(fake.url).port;
    /** The file downloads the fake saw, by the Host header they came with. */
    const downloadsVia = (host: string) => fake.requests.filter((r) => r.path.startsWith('/files/') && r.headers.host === host);

    async function fetchResult(prompt: string) {
      const req = request(prompt);
      const { job } = await runToEnd(sut(), req);
      return failureOf(sut().fetch(job, req));
    }

    it('follows a redirect on its own host, as before', async () => {
      fake.redirectFilesTo = fake.url;
      expect(await fetchResult('moved on the same host')).toBeNull();
    });

    it('refuses a file URL on another host that is loopback (localhost), without connecting', async () => {
      fake.fileOrigin = `http://localhost:${port()}`;
      const error = await fetchResult('file on localhost');
      expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
      expectSafe(error);
      expect(downloadsVia(`localhost:${port()}`)).toEqual([]);
    });

    it('refuses a redirect to loopback on another host (another address, or a name)', async () => {
      for (const elsewhere of [`http://127.0.0.2:${port()}`, `http://localhost:${port()}`]) {
        fake.redirectFilesTo = elsewhere;
        const error = await fetchResult(`redirected to ${elsewhere}`);
        expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
        expectSafe(error);
        expect(downloadsVia(new URL(elsewhere).host)).toEqual([]);
      }
    });

    it('refuses a host whose DNS answer is loopback or private, checked at connection time', async () => {
      fake.fileOrigin = `http://files.cdn.example:${port()}`;
      // Loopback (where a slip would show as a request to the fake), private, and one private address among public ones.
      for (const addresses of [['127.0.0.1'], ['10.0.0.9'], ['93.184.215.14', '192.168.4.4']]) {
        dns.answer = (name) => (name === 'files.cdn.example' ? { addresses } : 'nxdomain');
        const error = await fetchResult(`a file host on ${addresses.join(' and ')}`);
        expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
        expectSafe(error);
      }
      expect(dns.queriesFor('files.cdn.example').length).toBeGreaterThan(0);
      expect(downloadsVia(`files.cdn.example:${port()}`)).toEqual([]);
    });

    it('gives up on a file host whose DNS never answers within the resolver’s timeout: provider_unavailable, retryable', async () => {
      fake.fileOrigin = `http://silent.cdn.example:${port()}`;
      dns.answer = () => 'silence';
      const req = request('a file host without DNS');
      const { job } = await runToEnd(sut(), req);
      // Only the fetch is timed: the job's submit and polls before it take longer on a busy machine.
      const started = performance.now();
      const error = await failureOf(sut().fetch(job, req));
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expect(dns.queriesFor('silent.cdn.example').length).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });

  it("rethrows the caller's own abort rather than blaming the provider", async () => {
    fake.submitBehaviour = 'hang';
    const controller = new AbortController();
    const received = fake.nextRequest();
    const pending = sut().submit(request('a lake'), controller.signal);
    await received;
    const reason = new Error('scene deleted');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
