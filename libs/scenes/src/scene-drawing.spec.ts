import { sceneDrawing } from './scene-drawing';

describe(sceneDrawing.name, () => {
  it('keeps what draws the scene and drops the prompt, the edit history and the generator’s own fields', () => {
    const spec = {
      schemaVersion: 1,
      prompt: 'A harbour MARKER at night',
      sky: { top: '#000000', horizon: '#111111' },
      lighting: { sun: { direction: [0, 1, 0], color: '#ffffff', intensity: 1 }, ambient: { color: '#ffffff', intensity: 0.2 } },
      fog: null,
      cameras: [{ id: 'hero', name: 'Hero', position: [0, 1, 5], target: [0, 0, 0], focalLengthMm: 35 }],
      edits: [{ version: 2, instruction: 'add MARKER boats', changes: ['props:boat'] }],
      world: { metricScale: 1, groundOffset: 0 },
      seed: 7,
      biome: 'ocean',
      props: [{ kind: 'boat' }],
      backdrop: { sourceSha256: 'ab'.repeat(32) },
      caption: 'a MARKER a provider added',
    };

    const sut = sceneDrawing(spec);

    expect(sut).toEqual({
      schemaVersion: 1,
      sky: spec.sky,
      lighting: spec.lighting,
      fog: null,
      cameras: spec.cameras,
      world: spec.world,
    });
    expect(JSON.stringify(sut)).not.toContain('MARKER');
  });

  it('leaves a field that is absent absent, and ignores prototype names', () => {
    expect(sceneDrawing({ sky: { top: '#000000' }, constructor: 'x', toString: 'y' })).toEqual({ sky: { top: '#000000' } });
  });
});
