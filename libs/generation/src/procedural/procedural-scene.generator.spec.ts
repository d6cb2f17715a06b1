import { readGlb } from '@scene-studio/world-engine';
import { GenerationError, GenerationRequest, SourceImageInput } from '../scene-generator';
import { FakeImageMedia } from '../testing/fake-image-media';
import { ProceduralSceneGenerator, sceneSeed } from './procedural-scene.generator';

const source: SourceImageInput = { bytes: Buffer.from('image bytes'), format: 'png', width: 1920, height: 1080, sha256: 'ab'.repeat(32) };

const request = (overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt: 'a forest by the lake at sunset',
  source: null,
  edit: null,
  idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  ...overrides,
});

const glbOf = (scene: { artifacts: { bytes: Buffer }[] }) => scene.artifacts[0].bytes;

describe(ProceduralSceneGenerator.name, () => {
  let media: FakeImageMedia;
  let sut: ProceduralSceneGenerator;

  beforeEach(() => {
    media = new FakeImageMedia([
      { rgb: [200, 60, 20], share: 0.7 },
      { rgb: [20, 60, 200], share: 0.3 },
    ]);
    sut = new ProceduralSceneGenerator(media);
  });

  it('creates a spec and a readable GLB from a prompt, without touching images', async () => {
    const scene = await sut.generate(request());
    const { spec } = scene;
    const glb = glbOf(scene);
    expect(spec).toMatchObject({ biome: 'forest', timeOfDay: 'sunset', seed: sceneSeed('a forest by the lake at sunset', null) });
    expect(spec.water).not.toBeNull();
    const doc = await readGlb(glb);
    expect(doc.getRoot().listMeshes().length).toBeGreaterThan(3);
    expect(media.calls).toEqual([]);
  });

  it('is deterministic: byte-identical spec JSON and GLB for the same request', async () => {
    const a = await sut.generate(request({ source }));
    const b = await new ProceduralSceneGenerator(media).generate(request({ source }));
    expect(JSON.stringify(a.spec)).toBe(JSON.stringify(b.spec));
    expect(glbOf(a).equals(glbOf(b))).toBe(true);
  });

  it('seeds from the prompt and the source: another image gives another scene', async () => {
    const a = await sut.generate(request());
    const b = await sut.generate(request({ source: { ...source, sha256: 'cd'.repeat(32) } }));
    expect(b.spec.seed).not.toBe(a.spec.seed);
    expect(b.spec.props).not.toEqual(a.spec.props);
  });

  it('takes the palette from a thumbnail and writes no part of the image into the GLB', async () => {
    const scene = await sut.generate(request({ source }));
    const { spec } = scene;
    const glb = glbOf(scene);
    expect(media.calls).toEqual(['thumbnail 64x36']);
    expect(spec.palette).toEqual(['#c83c14', '#143cc8']);
    expect(spec.backdrop).toMatchObject({ sourceSha256: source.sha256 });
    const doc = await readGlb(glb);
    expect(doc.getRoot().listTextures()).toHaveLength(0);
    expect(doc.getRoot().getExtras()).toEqual({});
    expect(glb.includes(source.sha256)).toBe(false);
  });

  it('applies an edit to the previous spec and records it, reusing the palette without reading the image again', async () => {
    const v1 = await sut.generate(request({ source }));
    media.calls.length = 0;
    const v2 = await sut.generate(request({ version: 2, source, edit: { previous: v1.spec, instruction: 'make it night' } }));
    expect(v2.spec).toMatchObject({ timeOfDay: 'night', palette: v1.spec.palette, seed: v1.spec.seed, backdrop: v1.spec.backdrop });
    expect(v2.spec.edits).toEqual([{ version: 2, instruction: 'make it night', changes: ['time:night'] }]);
    expect(media.calls).toEqual([]);
    expect((await readGlb(glbOf(v2))).getRoot().listTextures()).toHaveLength(0);
  });

  it('refuses to edit a malformed spec with a safe, final error', async () => {
    const bad = { ...(await sut.generate(request())).spec, cameras: [] };
    await expect(sut.generate(request({ version: 2, edit: { previous: bad, instruction: 'x' } }))).rejects.toMatchObject({
      code: 'generation_failed',
      retryable: false,
      message: 'The scene to edit is not a valid scene.',
    });
  });

  it("an edit of a scene it did not make (a provider's view) regenerates from the prompt and every instruction", async () => {
    const providerView = { ...(await sut.generate(request())).spec };
    const view = {
      schemaVersion: 1 as const,
      prompt: 'a forest by the lake at sunset',
      sky: providerView.sky,
      lighting: providerView.lighting,
      fog: null,
      cameras: providerView.cameras,
      edits: [{ version: 2, instruction: 'make it night', changes: ['regenerated'] }],
    };
    const v3 = await sut.generate(request({ version: 3, edit: { previous: view, instruction: 'add snow' } }));
    expect(v3.spec.prompt).toBe('a forest by the lake at sunset');
    expect(v3.spec.timeOfDay).toBe('night');
    expect(v3.spec.terrain.snowCover).toBe(true);
    expect(v3.spec.edits.map((e) => [e.version, e.instruction])).toEqual([
      [2, 'make it night'],
      [3, 'add snow'],
    ]);
    expect(await readGlb(glbOf(v3))).toBeDefined();
  });

  it('reports an unreadable source image as generation_failed, without the decoder text', async () => {
    media.failWith = new Error('vips: Input buffer contains unsupported image format');
    const error = await sut.generate(request({ source })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationError);
    expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
    expect((error as Error).message).not.toMatch(/vips/);
  });

  it('stops when its signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(sut.generate(request(), controller.signal)).rejects.toThrow('cancelled');
  });
});
