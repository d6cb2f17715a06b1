import { AppConfig, Clock, HostResolver } from '@app/core';
import { ImageAssetsModule, ImageMedia } from '@app/image-assets';
import { Module } from '@nestjs/common';
import { HttpSceneGenerator } from './http/http-scene.generator';
import { ProceduralSceneGenerator } from './procedural/procedural-scene.generator';
import { MeshySceneGenerator } from './providers/meshy/meshy-scene.generator';
import { WorldLabsSceneGenerator } from './providers/worldlabs/worldlabs-scene.generator';
import { SceneGenerator } from './scene-generator';
import { SplatPreviewingGenerator } from './splat-previews';
import { ProviderFileScrubbing } from './providers/provider-files';
import { SPZ_MAX_INFLATION } from '@scene-studio/world-engine';
import { GENERATION_CONFIG } from './generation.config';
import { TestModeSceneGenerator } from './test-mode/test-mode-scene.generator';

/**
 * The generator named by `GENERATOR`. Config validation already refused a provider without its
 * key or URL, naming the variable; the checks here only narrow the types.
 */
export function createSceneGenerator(config: AppConfig, media: ImageMedia, resolver: HostResolver, clock: Clock): SceneGenerator {
  // Outermost: a test organization's directive never reaches the provider, its scenes are the
  // procedural generator's (nothing to scrub or preview), and everything else passes through.
  return new TestModeSceneGenerator(createConfiguredGenerator(config, media, resolver), new ProceduralSceneGenerator(media, null), clock);
}

function createConfiguredGenerator(config: AppConfig, media: ImageMedia, resolver: HostResolver): SceneGenerator {
  const { splatPreview: preview, maxArtifactBytes, generator: kind } = config.slice(GENERATION_CONFIG);
  const made = createProviderGenerator(config, media, resolver);
  // A provider's files lose what it wrote about them (the prompt, say) before they are stored; the
  // procedural generator's are ours and carry nothing of the kind (writeSceneGlb).
  const generator = kind === 'procedural' ? made : new ProviderFileScrubbing(made, media, maxArtifactBytes);
  if (!preview) return generator;
  return new SplatPreviewingGenerator(generator, {
    count: preview.count,
    maxInflatedBytes: maxArtifactBytes * SPZ_MAX_INFLATION,
    maxSourceSplats: MAX_PREVIEW_SOURCE_SPLATS,
  });
}

/**
 * ~90 bytes a splat at the peak while a preview is made (the inflated file, positions, cell keys
 * and their index): 4 million splats took 0.36 GB above a worker's rest, in 2.2 s (measured).
 */
const MAX_PREVIEW_SOURCE_SPLATS = 4_000_000;

function createProviderGenerator(config: AppConfig, media: ImageMedia, resolver: HostResolver): SceneGenerator {
  const g = config.slice(GENERATION_CONFIG);
  const shared = { timeoutMs: g.providerTimeoutMs, maxArtifactBytes: g.maxArtifactBytes, resolver };
  switch (g.generator) {
    case 'procedural':
      return new ProceduralSceneGenerator(media, g.proceduralSplats);
    case 'http':
      if (!g.providerUrl) throw new Error('GENERATION_PROVIDER_URL must be set when GENERATOR is "http"');
      return new HttpSceneGenerator({ baseUrl: g.providerUrl, apiKey: g.providerApiKey, ...shared });
    case 'meshy': {
      const { meshy } = g;
      if (!meshy.apiKey) throw new Error('MESHY_API_KEY must be set when GENERATOR is "meshy"');
      return new MeshySceneGenerator({ ...meshy, apiKey: meshy.apiKey, ...shared }, media);
    }
    case 'worldlabs': {
      const { worldLabs } = g;
      if (!worldLabs.apiKey) throw new Error('WORLDLABS_API_KEY must be set when GENERATOR is "worldlabs"');
      return new WorldLabsSceneGenerator({ ...worldLabs, apiKey: worldLabs.apiKey, ...shared });
    }
  }
}

/**
 * Provides the SceneGenerator port. Consumers (the worker's generation and edit handlers)
 * inject `SceneGenerator` and never know which implementation runs.
 */
@Module({
  imports: [ImageAssetsModule],
  providers: [{ provide: SceneGenerator, inject: [AppConfig, ImageMedia, HostResolver, Clock], useFactory: createSceneGenerator }],
  exports: [SceneGenerator],
})
export class GenerationModule {}
