import { HostResolver, loadConfig, ManualClock } from '@app/core';
import { createSceneGenerator as createOuter } from './generation.module';
import { TestModeSceneGenerator } from './test-mode/test-mode-scene.generator';
import { SceneGenerator } from './scene-generator';
import { HttpSceneGenerator } from './http/http-scene.generator';
import { MeshySceneGenerator } from './providers/meshy/meshy-scene.generator';
import { WorldLabsSceneGenerator } from './providers/worldlabs/worldlabs-scene.generator';
import { ProceduralSceneGenerator } from './procedural/procedural-scene.generator';
import { SplatPreviewingGenerator } from './splat-previews';
import { FakeImageMedia } from './testing/fake-image-media';
import { ProviderFileScrubbing } from './providers/provider-files';

/** The provider's generator under the decorators: previews (every configuration, by default) and file scrubbing (providers). */
const provider = (g: SceneGenerator): SceneGenerator =>
  g instanceof SplatPreviewingGenerator || g instanceof ProviderFileScrubbing ? provider(g.inner) : g;

/** The configured generator, under test mode's (which every configuration gets, outermost). */
const createSceneGenerator: typeof createOuter = (...args) => {
  const g = createOuter(...args);
  if (!(g instanceof TestModeSceneGenerator)) throw new Error('test mode is not the outermost generator');
  return g.inner;
};

describe(createOuter.name, () => {
  const media = new FakeImageMedia();
  const resolver = new HostResolver({ servers: null, timeoutMs: 1000 });
  const clock = new ManualClock(0);

  it('uses the procedural generator by default', () => {
    expect(provider(createSceneGenerator(loadConfig({ GENERATOR: 'procedural' }, {}), media, resolver, clock))).toBeInstanceOf(
      ProceduralSceneGenerator,
    );
  });

  it('uses the http provider when GENERATOR is http', () => {
    const config = loadConfig(
      { GENERATOR: 'http', GENERATION_PROVIDER_URL: 'https://provider.example', GENERATION_PROVIDER_API_KEY: 'pk_test' },
      {},
    );
    expect(provider(createSceneGenerator(config, media, resolver, clock))).toBeInstanceOf(HttpSceneGenerator);
  });

  it('uses Meshy when GENERATOR is meshy', () => {
    const config = loadConfig({ GENERATOR: 'meshy', MESHY_API_KEY: 'msy_test' }, {});
    expect(provider(createSceneGenerator(config, media, resolver, clock))).toBeInstanceOf(MeshySceneGenerator);
  });

  it('uses World Labs when GENERATOR is worldlabs', () => {
    const config = loadConfig({ GENERATOR: 'worldlabs', WORLDLABS_API_KEY: 'wlt_test' }, {});
    expect(provider(createSceneGenerator(config, media, resolver, clock))).toBeInstanceOf(WorldLabsSceneGenerator);
  });

  it("scrubs every provider's files, and leaves the procedural generator's as it writes them", () => {
    const scrubbed = (env: Record<string, string>) => {
      const g = createSceneGenerator(loadConfig({ ...env, SPLAT_PREVIEW_COUNT: '0' }, {}), media, resolver, clock);
      return g instanceof ProviderFileScrubbing;
    };
    expect(scrubbed({ GENERATOR: 'worldlabs', WORLDLABS_API_KEY: 'wlt_test' })).toBe(true);
    expect(scrubbed({ GENERATOR: 'meshy', MESHY_API_KEY: 'msy_test' })).toBe(true);
    expect(scrubbed({ GENERATOR: 'http', GENERATION_PROVIDER_URL: 'https://provider.example' })).toBe(true);
    expect(scrubbed({ GENERATOR: 'procedural' })).toBe(false);
  });

  it('adds splat previews to every generator unless SPLAT_PREVIEW_COUNT is 0', () => {
    expect(createSceneGenerator(loadConfig({ GENERATOR: 'procedural' }, {}), media, resolver, clock)).toBeInstanceOf(
      SplatPreviewingGenerator,
    );
    expect(
      createSceneGenerator(loadConfig({ GENERATOR: 'procedural', SPLAT_PREVIEW_COUNT: '0' }, {}), media, resolver, clock),
    ).toBeInstanceOf(ProceduralSceneGenerator);
  });
});
