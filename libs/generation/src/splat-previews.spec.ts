import { ProceduralSceneGenerator } from './procedural/procedural-scene.generator';
import { GenerationRequest, ProviderJob, SceneGenerator } from './scene-generator';
import { SplatPreviewingGenerator } from './splat-previews';
import { SPZ_CONTENT_TYPE, inspectSpz } from '@scene-studio/world-engine';
import { FakeImageMedia } from './testing/fake-image-media';

const request: GenerationRequest = {
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt: 'a forest by the lake at sunset',
  source: null,
  edit: null,
  idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
};

const options = { count: 1000, maxInflatedBytes: 1 << 26, maxSourceSplats: 1_000_000 };
const splatWorlds = (count: number) => new ProceduralSceneGenerator(new FakeImageMedia(), { count });

describe(SplatPreviewingGenerator.name, () => {
  it('stores a coarse copy beside a splat of more than twice the preview size', async () => {
    const sut = new SplatPreviewingGenerator(splatWorlds(5000), options);
    const outcome = await sut.submit(request);
    if (!('scene' in outcome)) throw new Error('the procedural generator answers at once');
    expect(outcome.scene.artifacts.map((a) => a.kind)).toEqual(['splat', 'collider', 'splat-preview']);
    const preview = outcome.scene.artifacts[2];
    expect(preview.contentType).toBe(SPZ_CONTENT_TYPE);
    const { points } = inspectSpz(preview.bytes, 1 << 26);
    expect(points).toBeLessThanOrEqual(1000);
    expect(points).toBeGreaterThan(700);
  });

  it('adds nothing to a small splat, a mesh, or when the world is over the reading limit', async () => {
    const kinds = async (sut: SceneGenerator) => {
      const outcome = await sut.submit(request);
      return 'scene' in outcome ? outcome.scene.artifacts.map((a) => a.kind) : null;
    };
    expect(await kinds(new SplatPreviewingGenerator(splatWorlds(2000), options))).toEqual(['splat', 'collider']);
    expect(await kinds(new SplatPreviewingGenerator(new ProceduralSceneGenerator(new FakeImageMedia(), null), options))).toEqual(['mesh']);
    expect(await kinds(new SplatPreviewingGenerator(splatWorlds(5000), { ...options, maxSourceSplats: 4000 }))).toEqual([
      'splat',
      'collider',
    ]);
  });

  it('leaves provider jobs to the provider: submit, poll and cancel pass through, fetch gets the preview', async () => {
    const job: ProviderJob = { id: 'job-1' };
    const world = await splatWorlds(5000).generate(request);
    class JobProvider extends SceneGenerator {
      readonly name = 'jobs';
      submit = jest.fn().mockResolvedValue({ job });
      override poll = jest.fn().mockResolvedValue({ status: 'succeeded' });
      override fetch = jest.fn().mockResolvedValue(world);
      override cancel = jest.fn().mockResolvedValue(true);
    }
    const inner = new JobProvider();
    const sut = new SplatPreviewingGenerator(inner, options);
    expect(sut.name).toBe('jobs');
    expect(await sut.submit(request)).toEqual({ job });
    expect(await sut.poll(job)).toEqual({ status: 'succeeded' });
    expect(await sut.cancel(job)).toBe(true);
    const fetched = await sut.fetch(job, request);
    expect(fetched.artifacts.map((a) => a.kind)).toEqual(['splat', 'collider', 'splat-preview']);
    expect(inner.fetch).toHaveBeenCalledWith(job, request, undefined);
  });
});
