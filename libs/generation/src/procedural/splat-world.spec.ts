import { GenerationRequest } from '../scene-generator';
import { SPZ_CONTENT_TYPE, inspectSpz, readGlb, readSpzPoints, sampleSceneSplats } from '@scene-studio/world-engine';
import { FakeImageMedia } from '../testing/fake-image-media';
import { ProceduralSceneGenerator } from './procedural-scene.generator';

const request = (overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt: 'a forest by the lake at sunset',
  source: null,
  edit: null,
  idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  ...overrides,
});

describe('procedural splat worlds (PROCEDURAL_SPLATS)', () => {
  const media = () => new FakeImageMedia([{ rgb: [200, 60, 20], share: 1 }]);
  const sut = () => new ProceduralSceneGenerator(media(), { count: 5000 });

  it('makes a version a splat world: an SPZ with the configured count and the scene as its collider', async () => {
    const scene = await sut().generate(request());
    expect(scene.artifacts.map((a) => [a.kind, a.contentType])).toEqual([
      ['splat', SPZ_CONTENT_TYPE],
      ['collider', 'model/gltf-binary'],
    ]);
    expect(inspectSpz(scene.artifacts[0].bytes, 64 * 1024 * 1024)).toEqual({ version: 3, points: 5000, shDegree: 0 });
    const collider = await readGlb(scene.artifacts[1].bytes);
    expect(collider.getRoot().listMeshes().length).toBeGreaterThan(3);
  });

  it('is deterministic, and an edit gives other splats', async () => {
    const a = await sut().generate(request());
    const b = await sut().generate(request());
    expect(a.artifacts[0].bytes.equals(b.artifacts[0].bytes)).toBe(true);
    const night = await sut().generate(request({ version: 2, edit: { previous: a.spec, instruction: 'make it night' } }));
    expect(night.artifacts[0].bytes.equals(a.artifacts[0].bytes)).toBe(false);
  });

  it('puts splats on the scene: inside its terrain, with its colours, darker at night', async () => {
    const day = await sut().generate(request({ prompt: 'a meadow at noon' }));
    const points = readSpzPoints(day.artifacts[0].bytes);
    const half = day.spec.terrain.size / 2;
    for (const p of points) {
      expect(Math.abs(p.position[0])).toBeLessThanOrEqual(half + 20);
      expect(Math.abs(p.position[2])).toBeLessThanOrEqual(half + 20);
    }
    const luma = (ps: typeof points) => ps.reduce((s, p) => s + p.color[0] + p.color[1] + p.color[2], 0) / ps.length;
    const night = await sut().generate(request({ version: 2, edit: { previous: day.spec, instruction: 'make it night' } }));
    expect(luma(readSpzPoints(night.artifacts[0].bytes))).toBeLessThan(luma(points) * 0.8);
    // Not one flat colour: the terrain's gradient and the props show through.
    const distinct = new Set(points.map((p) => p.color.map((c) => Math.round(c * 20)).join(',')));
    expect(distinct.size).toBeGreaterThan(20);
  });

  it('gives props their share of splats even though the ground has most of the area', async () => {
    const scene = await new ProceduralSceneGenerator(media()).generate(request());
    const doc = await readGlb(scene.artifacts[0].bytes);
    const splats = sampleSceneSplats(doc, { count: 2000, seed: 1, sunDirection: [0, 1, 0], daylight: 1 });
    expect(splats).toHaveLength(2000);
    const props = scene.spec.props;
    expect(props.length).toBeGreaterThan(3);
    const onAProp = splats.filter((s) =>
      props.some(
        (p) =>
          Math.hypot(s.position[0] - p.position[0], s.position[2] - p.position[2]) < 3 * Math.max(...p.scale) &&
          s.position[1] > p.position[1] + 0.05,
      ),
    ).length;
    expect(onAProp).toBeGreaterThan(splats.length * 0.3);
  });

  it('keeps the mesh path when splats are off', async () => {
    const scene = await new ProceduralSceneGenerator(media()).generate(request());
    expect(scene.artifacts.map((a) => a.kind)).toEqual(['mesh']);
  });
});
