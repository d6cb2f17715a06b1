import { Logger } from '@nestjs/common';
import { FinishedSceneTransform, GeneratedScene, SceneArtifact, SceneGenerator } from './scene-generator';
import { previewSplats } from './spz/splat-preview';
import { SPZ_CONTENT_TYPE, SpzError, SpzReader, writeSpz } from '@scene-studio/world-engine';

export interface SplatPreviewOptions {
  /** Splats in a preview; a world gets one when it has more than twice as many. */
  count: number;
  /** The inflation bound for reading a world (the generation's artifact limit, times 8). */
  maxInflatedBytes: number;
  /**
   * Worlds above this many splats get no preview: making one holds ~90 bytes a splat at its peak, and
   * such a world comes from a provider that could serve a coarse level itself.
   */
  maxSourceSplats: number;
}

/**
 * Adds a `splat-preview` artifact (a coarse copy, spz/splat-preview.ts) to every finished scene
 * whose splat is large, whichever generator made it, so the studio can draw something within a
 * second and swap in the whole world once it has decoded. A splat that cannot be read here (SPZ
 * version 4, or over `maxSourceSplats`) goes without a preview: the studio then waits for the
 * world, as before, and nothing fails.
 */
export class SplatPreviewingGenerator extends FinishedSceneTransform {
  private readonly logger = new Logger('SplatPreviews');

  constructor(
    inner: SceneGenerator,
    private readonly options: SplatPreviewOptions,
  ) {
    super(inner);
  }

  protected transform(scene: GeneratedScene): GeneratedScene {
    const splat = scene.artifacts.find((a) => a.kind === 'splat');
    if (!splat || scene.artifacts.some((a) => a.kind === 'splat-preview')) return scene;
    const preview = this.preview(splat);
    return preview ? { ...scene, artifacts: [...scene.artifacts, preview] } : scene;
  }

  private preview(splat: SceneArtifact): SceneArtifact | null {
    let reader: SpzReader;
    try {
      reader = SpzReader.open(splat.bytes, this.options.maxInflatedBytes);
    } catch (e) {
      // The splat itself was already checked; only its version can stop us (v4, zstd).
      this.logger.log(`no splat preview: ${e instanceof SpzError ? e.message : 'the splat could not be read'}`);
      return null;
    }
    if (reader.count <= this.options.count * 2) return null;
    if (reader.count > this.options.maxSourceSplats) {
      this.logger.log(`no splat preview: ${reader.count} splats is over ${this.options.maxSourceSplats}`);
      return null;
    }
    return { kind: 'splat-preview', contentType: SPZ_CONTENT_TYPE, bytes: writeSpz(previewSplats(reader, this.options.count)) };
  }
}
