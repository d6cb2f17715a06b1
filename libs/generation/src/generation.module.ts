import { AppConfig } from '@app/core';
import { ImageAssetsModule, ImageMedia } from '@app/image-assets';
import { Module } from '@nestjs/common';
import { HttpSceneGenerator } from './http/http-scene.generator';
import { ProceduralSceneGenerator } from './procedural/procedural-scene.generator';
import { SceneGenerator } from './scene-generator';

/** The generator named by `GENERATOR`; config validation already guarantees a URL for `http`. */
export function createSceneGenerator(config: AppConfig, media: ImageMedia): SceneGenerator {
  const g = config.generation;
  if (g.generator === 'http') {
    if (!g.providerUrl) throw new Error('GENERATION_PROVIDER_URL must be set when GENERATOR is "http"');
    return new HttpSceneGenerator({ baseUrl: g.providerUrl, apiKey: g.providerApiKey, timeoutMs: g.providerTimeoutMs });
  }
  return new ProceduralSceneGenerator(media);
}

/**
 * Provides the SceneGenerator port. Consumers (the worker's generation and edit handlers)
 * inject `SceneGenerator` and never know which implementation runs.
 */
@Module({
  imports: [ImageAssetsModule],
  providers: [{ provide: SceneGenerator, inject: [AppConfig, ImageMedia], useFactory: createSceneGenerator }],
  exports: [SceneGenerator],
})
export class GenerationModule {}
