import { loadConfig } from '@app/core';
import { createSceneGenerator } from './generation.module';
import { HttpSceneGenerator } from './http/http-scene.generator';
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
});
