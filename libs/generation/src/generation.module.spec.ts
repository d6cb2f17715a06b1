import { loadConfig } from '@app/core';
import { createSceneGenerator } from './generation.module';
import { HttpSceneGenerator } from './http/http-scene.generator';
import { MeshySceneGenerator } from './providers/meshy/meshy-scene.generator';
import { WorldLabsSceneGenerator } from './providers/worldlabs/worldlabs-scene.generator';
import { ProceduralSceneGenerator } from './procedural/procedural-scene.generator';
import { FakeImageMedia } from './testing/fake-image-media';

describe(createSceneGenerator.name, () => {
  const media = new FakeImageMedia();

  it('uses the procedural generator by default', () => {
    expect(createSceneGenerator(loadConfig({ GENERATOR: 'procedural' }, {}), media)).toBeInstanceOf(ProceduralSceneGenerator);
  });

  it('uses the http provider when GENERATOR is http', () => {
    const config = loadConfig(
      { GENERATOR: 'http', GENERATION_PROVIDER_URL: 'https://provider.example', GENERATION_PROVIDER_API_KEY: 'pk_test' },
      {},
    );
    expect(createSceneGenerator(config, media)).toBeInstanceOf(HttpSceneGenerator);
  });

  it('uses Meshy when GENERATOR is meshy', () => {
    const config = loadConfig({ GENERATOR: 'meshy', MESHY_API_KEY: 'msy_test' }, {});
    expect(createSceneGenerator(config, media)).toBeInstanceOf(MeshySceneGenerator);
  });

  it('uses World Labs when GENERATOR is worldlabs', () => {
    const config = loadConfig({ GENERATOR: 'worldlabs', WORLDLABS_API_KEY: 'wlt_test' }, {});
    expect(createSceneGenerator(config, media)).toBeInstanceOf(WorldLabsSceneGenerator);
  });
});
