import { composeScene } from './procedural/scene-composer';
import { SceneSpec } from './scene-spec';
import { SCENE_SPEC_LIMITS, SceneSpecError, parseSceneSpec, parseSceneView } from './scene-spec.parser';

const valid = (): SceneSpec => composeScene({ prompt: 'a village by the lake at sunset', seed: 42, sourcePalette: null, backdrop: null });

/** A copy of a valid spec with one change applied to its JSON form. */
function broken(change: (spec: Record<string, any>) => void): unknown {
  const spec = JSON.parse(JSON.stringify(valid()));
  change(spec);
  return spec;
}

describe(parseSceneSpec.name, () => {
  it('accepts a generated spec and returns an equal copy', () => {
    const spec = valid();
    const parsed = parseSceneSpec(JSON.parse(JSON.stringify(spec)));
    expect(parsed).toEqual(spec);
    expect(parsed).not.toBe(spec);
  });

  it('accepts a spec with a backdrop and edits', () => {
    const spec = broken((s) => {
      s.backdrop = { sourceSha256: 'a'.repeat(64), position: [0, 40, -84], width: 176, height: 99 };
      s.edits = [{ version: 2, instruction: 'make it night', changes: ['time:night'] }];
    });
    expect(parseSceneSpec(spec).backdrop?.width).toBe(176);
  });

  it('drops fields it does not know, so nothing unvetted travels on', () => {
    const parsed = parseSceneSpec(
      broken((s) => {
        s.script = '<script>alert(1)</script>';
        s.props[0].onClick = 'x';
      }),
    );
    expect(parsed).not.toHaveProperty('script');
    expect(parsed.props[0]).not.toHaveProperty('onClick');
  });

  it('normalises hex colours to lower case', () => {
    expect(parseSceneSpec(broken((s) => (s.sky.top = '#AABBCC'))).sky.top).toBe('#aabbcc');
  });

  it.each<[string, (s: Record<string, any>) => void, string]>([
    ['another schema version', (s) => (s.schemaVersion = 2), 'schemaVersion'],
    ['a fractional seed', (s) => (s.seed = 1.5), 'seed'],
    ['an unknown biome', (s) => (s.biome = 'moon'), 'biome'],
    ['an unknown time of day', (s) => (s.timeOfDay = 'noonish'), 'timeOfDay'],
    ['a colour that is not #rrggbb', (s) => (s.sky.horizon = 'red'), 'sky.horizon'],
    ['a NaN in a position', (s) => (s.props[0].position[1] = NaN), 'props[0].position[1]'],
    ['a position given as a string', (s) => (s.props[1].position = '1,2,3'), 'props[1].position'],
    ['a zero scale', (s) => (s.props[0].scale = [1, 0, 1]), 'props[0].scale'],
    ['an unknown prop kind', (s) => (s.props[0].kind = 'dragon'), 'props[0].kind'],
    ['fog whose far is not beyond near', (s) => (s.fog = { color: '#ffffff', near: 50, far: 10 }), 'fog.far'],
    ['a missing terrain', (s) => delete s.terrain, 'terrain'],
    ['a terrain grid too fine to render', (s) => (s.terrain.segments = 100_000), 'terrain.segments'],
    ['a sun with no direction', (s) => (s.lighting.sun.direction = [0, 0, 0]), 'lighting.sun.direction'],
    ['no cameras', (s) => (s.cameras = []), 'cameras'],
    ['a camera id with spaces', (s) => (s.cameras[0].id = 'my camera'), 'cameras[0].id'],
    ['two cameras with one id', (s) => (s.cameras[1].id = s.cameras[0].id), 'cameras[].id (duplicate)'],
    ['a camera looking at itself', (s) => (s.cameras[0].target = s.cameras[0].position), 'cameras[0].target'],
    ['an absurd focal length', (s) => (s.cameras[0].focalLengthMm = 0), 'cameras[0].focalLengthMm'],
    [
      'a backdrop without a sha256',
      (s) => (s.backdrop = { sourceSha256: 'abc', position: [0, 0, 0], width: 1, height: 1 }),
      'backdrop.sourceSha256',
    ],
    ['an empty palette', (s) => (s.palette = []), 'palette'],
    ['an edit without a version', (s) => (s.edits = [{ instruction: 'x', changes: [] }]), 'edits[0].version'],
    ['water given as a number', (s) => (s.water = 3), 'water'],
  ])('refuses %s', (_, change, path) => {
    let error: unknown;
    try {
      parseSceneSpec(broken(change));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SceneSpecError);
    expect((error as SceneSpecError).path).toBe(path);
  });

  it('refuses too many props', () => {
    const spec = broken((s) => (s.props = Array.from({ length: SCENE_SPEC_LIMITS.maxProps + 1 }, () => s.props[0])));
    expect(() => parseSceneSpec(spec)).toThrow(new SceneSpecError('props'));
  });

  it.each([null, 42, 'spec', [], undefined])('refuses %p', (value) => {
    expect(() => parseSceneSpec(value)).toThrow(SceneSpecError);
  });

  it('never repeats the offending value in its message', () => {
    expect(() => parseSceneSpec(broken((s) => (s.biome = 'SECRET-VALUE')))).toThrow(/^Invalid scene spec at biome$/);
  });
});

describe(parseSceneView.name, () => {
  /** A provider's view (no terrain: not a procedural spec) with `world` set. */
  const withWorld = (world: unknown): unknown => {
    const { schemaVersion, prompt, sky, lighting, fog, cameras, edits } = valid();
    return JSON.parse(JSON.stringify({ schemaVersion, prompt, sky, lighting, fog, cameras, edits, world }));
  };

  it('keeps a world transform with the frame of its files', () => {
    const view = withWorld({ metricScale: 1.25, groundOffset: 0.4, frame: 'opencv' });
    expect(parseSceneView(view).world).toEqual({ metricScale: 1.25, groundOffset: 0.4, frame: 'opencv' });
  });

  it('reads a world transform stored before the frame was recorded as it was (no frame: as stored)', () => {
    const view = withWorld({ metricScale: 2, groundOffset: 0 });
    expect(parseSceneView(view).world).toEqual({ metricScale: 2, groundOffset: 0 });
  });

  it('refuses a frame it does not know', () => {
    const view = withWorld({ metricScale: 1, groundOffset: 0, frame: 'z-up' });
    expect(() => parseSceneView(view)).toThrow(new SceneSpecError('world.frame'));
  });
});
