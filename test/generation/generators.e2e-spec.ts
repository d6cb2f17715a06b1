import {
  GeneratedScene,
  GenerationError,
  GenerationRequest,
  HttpSceneGenerator,
  ProceduralSceneGenerator,
  SourceImageInput,
} from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { Document, NodeIO } from '@gltf-transform/core';
import { validateBytes } from 'gltf-validator';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import sharp from 'sharp';
import { image } from '../factories/images';
import { FakeGenerationProvider, PROVIDER_MARKER, ProviderBehaviour } from '../support/fake-generation-provider';

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
  ...overrides,
});

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
      await expectValidGltf(scene.glb);
    });

    it('holds meshes with materials, and a named camera node per preset', async () => {
      const doc = await readBack(scene.glb);
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
      expect(scene.glb.length).toBeLessThan(2 * 1024 * 1024);
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
      expect(a.glb.equals(b.glb)).toBe(true);
    }
  });

  it('gives different scenes for different prompts', async () => {
    const scenes = await Promise.all(PROMPTS.map((p) => sut.generate(request(p))));
    expect(new Set(scenes.map((s) => sha256(s.glb))).size).toBe(PROMPTS.length);
    expect(new Set(scenes.map((s) => JSON.stringify(s.spec))).size).toBe(PROMPTS.length);
  });

  it('turns a 1920×1080 source into a textured backdrop and a palette taken from the image', async () => {
    const { spec, glb } = await sut.generate(request('a forest by the lake', { source: gradient }));
    await expectValidGltf(glb);
    expect(glb.length).toBeLessThan(2 * 1024 * 1024);

    expect(spec.backdrop).toMatchObject({ sourceSha256: gradient.sha256 });
    expect(spec.palette).toHaveLength(5);
    const rgb = spec.palette.map((h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]);
    expect(rgb.some(([r, , b]) => r > b + 60)).toBe(true); // the warm side
    expect(rgb.some(([r, , b]) => b > r + 60)).toBe(true); // the cool side

    const doc = await readBack(glb);
    const textures = doc.getRoot().listTextures();
    expect(textures).toHaveLength(1);
    expect(textures[0].getMimeType()).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(textures[0].getImage()!)).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1024, height: 576 });
    const backdrop = doc
      .getRoot()
      .listMaterials()
      .find((m) => m.getBaseColorTexture() === textures[0]);
    expect(backdrop?.getName()).toBe('backdrop');
  });

  it('takes the exact colour of a flat source image as its palette', async () => {
    const flat = await image('png', 1920, 1080); // rgb(40, 90, 160)
    const { spec } = await sut.generate(request('a meadow', { source: sourceOf(flat, 'png') }));
    expect(spec.palette).toEqual(['#285aa0']);
  });

  it('applies edits and writes a valid GLB for the new version', async () => {
    const v1 = await sut.generate(request('a fishing village by the lake with boats', { source: gradient }));
    const instruction = 'make it night, add fog and remove the boats';
    const v2 = await sut.generate(request(v1.spec.prompt, { version: 2, source: gradient, edit: { previousSpec: v1.spec, instruction } }));
    expect(v2.spec).toMatchObject({ timeOfDay: 'night', palette: v1.spec.palette });
    expect(v2.spec.fog).not.toBeNull();
    expect(v2.spec.props.some((p) => p.kind === 'boat')).toBe(false);
    expect(v2.spec.edits.map((e) => e.version)).toEqual([2]);
    await expectValidGltf(v2.glb);
    expect((await readBack(v2.glb)).getRoot().listTextures()).toHaveLength(1);

    const v3 = await sut.generate(
      request(v1.spec.prompt, { version: 3, source: gradient, edit: { previousSpec: v2.spec, instruction: 'something unheard of' } }),
    );
    expect(v3.spec.edits).toEqual([...v2.spec.edits, { version: 3, instruction: 'something unheard of', changes: [] }]);
    expect(v3.glb.equals(v2.glb)).toBe(false);
    await expectValidGltf(v3.glb);
  });
});

describe('HttpSceneGenerator against a fake provider', () => {
  const KEY = 'pk_test_3d1f0c';
  const procedural = new ProceduralSceneGenerator(new SharpImageMedia());
  let fake: FakeGenerationProvider;
  let source: SourceImageInput;

  const sut = (options: { timeoutMs?: number; maxResponseBytes?: number; baseUrl?: string } = {}) =>
    new HttpSceneGenerator({
      baseUrl: options.baseUrl ?? fake.url,
      apiKey: KEY,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes,
    });

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(procedural);
    source = sourceOf(await image('jpeg', 1920, 1080, { noise: true }), 'jpeg');
  });

  afterAll(async () => {
    await fake?.close();
  });

  beforeEach(() => {
    fake.behaviour = 'success';
  });

  it('sends the documented request with the bearer key, and returns the provider scene', async () => {
    const req = request('a beach at sunset', { source });
    const result = await sut().generate(req);

    expect(fake.lastRequest).toMatchObject({ method: 'POST', path: '/v1/generations' });
    expect(fake.lastRequest!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.lastRequest!.headers['content-type']).toBe('application/json');
    expect(fake.lastRequest!.body).toEqual({
      sceneId: req.sceneId,
      version: 1,
      prompt: 'a beach at sunset',
      instruction: null,
      previousSpec: null,
      sourceImage: { format: 'jpeg', width: 1920, height: 1080, sha256: source.sha256, dataBase64: source.bytes.toString('base64') },
    });

    const direct = await procedural.generate(req);
    expect(result.spec).toEqual(direct.spec);
    expect(result.glb.equals(direct.glb)).toBe(true);
    await expectValidGltf(result.glb);
  });

  it('sends the instruction and the previous spec for an edit', async () => {
    const v1 = await procedural.generate(request('a forest'));
    const result = await sut({ baseUrl: `${fake.url}/` }).generate(
      request('a forest', { version: 2, edit: { previousSpec: v1.spec, instruction: 'make it night' } }),
    );
    expect(fake.lastRequest!.body).toMatchObject({ version: 2, instruction: 'make it night', previousSpec: v1.spec, sourceImage: null });
    expect(fake.lastRequest!.path).toBe('/v1/generations');
    expect(result.spec.timeOfDay).toBe('night');
  });

  describe('maps every failure to a safe GenerationError', () => {
    const cases: Array<[ProviderBehaviour, GenerationError['code'], boolean]> = [
      ['server-error', 'provider_unavailable', true],
      ['unavailable', 'provider_unavailable', true],
      ['rate-limited', 'provider_unavailable', true],
      ['bad-request', 'provider_rejected', false],
      ['unauthorized', 'provider_rejected', false],
      ['garbage-json', 'generation_failed', false],
      ['json-array', 'generation_failed', false],
      ['invalid-spec', 'generation_failed', false],
      ['invalid-glb', 'generation_failed', false],
      ['invalid-base64', 'generation_failed', false],
    ];

    it.each(cases)('%s → %s (retryable: %s)', async (behaviour, code, retryable) => {
      fake.behaviour = behaviour;
      const error = await sut()
        .generate(request('a lake'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GenerationError);
      expect(error).toMatchObject({ code, retryable });
      expect(fake.lastRequest!.headers.authorization).toBe(`Bearer ${KEY}`);
      // Nothing the provider said, anywhere in the error: message, stack or cause.
      expect((error as Error).message).not.toContain(PROVIDER_MARKER);
      expect(inspect(error, { depth: 10 })).not.toContain(PROVIDER_MARKER);
    });

    it('times out a provider that never answers: provider_timeout, retryable', async () => {
      fake.behaviour = 'hang';
      const error = await sut({ timeoutMs: 300 })
        .generate(request('a lake'))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
    });

    it.each(['oversized', 'oversized-chunked'] as const)('refuses an %s answer: generation_failed', async (behaviour) => {
      fake.behaviour = behaviour;
      fake.oversizeBytes = 2 * 1024 * 1024;
      const error = await sut({ maxResponseBytes: 1024 * 1024 })
        .generate(request('a lake'))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
    });

    it('reports a provider that is not listening as provider_unavailable, retryable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const error = await sut({ baseUrl: `http://127.0.0.1:${port}` })
        .generate(request('a lake'))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true });
    });

    it('gives the same fixed message for every failure of a kind', async () => {
      fake.behaviour = 'server-error';
      const a = (await sut()
        .generate(request('a'))
        .catch((e: unknown) => e)) as GenerationError;
      fake.behaviour = 'rate-limited';
      const b = (await sut()
        .generate(request('b'))
        .catch((e: unknown) => e)) as GenerationError;
      expect(a.message).toBe(b.message);
      expect(a.message).toBe('The generation provider is unavailable. Try again later.');
    });
  });

  it("rethrows the caller's own abort rather than blaming the provider", async () => {
    fake.behaviour = 'hang';
    const controller = new AbortController();
    const received = fake.nextRequest();
    const pending = sut().generate(request('a lake'), controller.signal);
    await received;
    const reason = new Error('scene deleted');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
