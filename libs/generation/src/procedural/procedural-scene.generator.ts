import { ImageMedia } from '@app/image-assets';
import { Injectable } from '@nestjs/common';
import {
  applyEdit,
  composeScene,
  dominantColors,
  HexColor,
  isProceduralSpec,
  parseSceneSpec,
  readGlb,
  sampleSceneSplats,
  SceneSpec,
  SceneSpecError,
  SceneView,
  seedFrom,
  SPZ_CONTENT_TYPE,
  writeSceneGlb,
  writeSpz,
} from '@scene-studio/world-engine';
import { GeneratedScene, GenerationError, GenerationRequest, SceneArtifact, SceneGenerator, SubmitOutcome } from '../scene-generator';

/**
 * What the procedural generator makes: its full spec, and either one mesh or (with splats on)
 * a splat world and its collider, the shape a world model's output has.
 */
export interface ProceduralScene extends GeneratedScene {
  spec: SceneSpec;
  artifacts: SceneArtifact[];
}

/** PROCEDURAL_SPLATS / PROCEDURAL_SPLAT_COUNT: emit each version as a splat world of this many splats. */
export interface ProceduralSplatOptions {
  count: number;
}

/** 16:9, the shape of every scene source; ~2 300 pixels is plenty for five dominant colours. */
const THUMBNAIL = { width: 64, height: 36 };
const PALETTE_SIZE = 5;

/** The scene's seed: a function of the prompt and the source image's bytes (through their SHA-256). */
export function sceneSeed(prompt: string, sourceSha256: string | null): number {
  return seedFrom('scene-spec/v1', prompt, sourceSha256 ?? '');
}

/**
 * The built-in generator: no network, no model — keywords of the prompt pick a biome, time of
 * day and weather, a seeded PRNG lays out terrain and props, and the result is written as a
 * glTF binary. It is deterministic: the same request gives byte-identical spec and GLB. The
 * engine itself is `@scene-studio/world-engine` (packages/world-engine); this adapter gives it
 * the SceneGenerator shape, the source image's palette and texture, and our error codes. Its
 * worlds are in metres, +Y up, ground around y = 0: the studio's units, so they carry no
 * `world` transform.
 *
 * Image work (palette, texture) goes through the ImageMedia port, never sharp directly.
 */
@Injectable()
export class ProceduralSceneGenerator extends SceneGenerator {
  readonly name = 'procedural';

  constructor(
    private readonly media: ImageMedia,
    private readonly splats: ProceduralSplatOptions | null = null,
  ) {
    super();
  }

  /** Generates in process: the finished scene, at once. */
  async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    return { scene: await this.generate(request, signal) };
  }

  async generate(request: GenerationRequest, signal?: AbortSignal): Promise<ProceduralScene> {
    signal?.throwIfAborted();
    // A scene another generator made (a provider's world) has no procedural description to edit:
    // it is generated afresh from its prompt and the instructions so far.
    if (request.edit && !isProceduralSpec(request.edit.previous)) return this.regenerate(request, request.edit.previous, signal);
    const previous = request.edit ? this.previousSpec(request.edit.previous) : null;
    const source = request.source;
    // An edit keeps the palette it already has. The image itself goes into no file: every studio
    // mode is served the files, and perform may not see the source image (writeSceneGlb).
    let palette: HexColor[] | null = null;
    if (source && previous === null) {
      try {
        const thumb = await this.media.thumbnail(source.bytes, THUMBNAIL.width, THUMBNAIL.height);
        palette = dominantColors(thumb.rgb, PALETTE_SIZE);
      } catch (e) {
        throw new GenerationError('generation_failed', 'The source image could not be processed.', false, { cause: e });
      }
    }
    signal?.throwIfAborted();

    try {
      let spec: SceneSpec;
      if (previous && request.edit) {
        spec = applyEdit(previous, request.edit.instruction, request.version);
      } else {
        spec = composeScene({
          prompt: request.prompt,
          seed: sceneSeed(request.prompt, source?.sha256 ?? null),
          sourcePalette: palette,
          backdrop: source ? { sourceSha256: source.sha256, aspect: source.width / source.height } : null,
        });
      }
      const glb = await writeSceneGlb(spec);
      if (!this.splats) return { spec, artifacts: [{ kind: 'mesh', contentType: 'model/gltf-binary', bytes: glb }] };
      return { spec, artifacts: await this.splatWorld(spec, glb, request.version) };
    } catch (e) {
      signal?.throwIfAborted();
      throw new GenerationError('generation_failed', 'The scene could not be generated.', false, { cause: e });
    }
  }

  /**
   * The scene as a world model would hand it over: the GLB sampled into splats (written as SPZ)
   * and the GLB itself as the collider, which the studio keeps invisible for focus, fly-mode
   * ground and framing. Seeded by the scene and version, so a retry writes the same bytes.
   */
  private async splatWorld(spec: SceneSpec, glb: Buffer, version: number): Promise<SceneArtifact[]> {
    const splats = sampleSceneSplats(await readGlb(glb), {
      count: this.splats!.count,
      seed: seedFrom('scene-splats/v1', String(spec.seed), String(version)),
      sunDirection: spec.lighting.sun.direction,
      daylight: Math.min(1, spec.lighting.sun.intensity / 3),
    });
    return [
      { kind: 'splat', contentType: SPZ_CONTENT_TYPE, bytes: writeSpz(splats) },
      { kind: 'collider', contentType: 'model/gltf-binary', bytes: glb },
    ];
  }

  /**
   * Rebuilds a scene from its prompt (and source image), then replays every instruction so far
   * in order, as if each had been an edit of a procedural scene: the result reflects all of them.
   */
  private async regenerate(request: GenerationRequest, previous: SceneView, signal?: AbortSignal): Promise<ProceduralScene> {
    const turns = [...previous.edits.map((e) => ({ version: e.version, instruction: e.instruction }))];
    turns.push({ version: request.version, instruction: request.edit!.instruction });
    let scene = await this.generate({ ...request, version: 1, edit: null }, signal);
    for (const turn of turns) {
      scene = await this.generate(
        { ...request, version: turn.version, edit: { previous: scene.spec, instruction: turn.instruction } },
        signal,
      );
    }
    return scene;
  }

  private previousSpec(value: SceneView): SceneSpec {
    try {
      return parseSceneSpec(value);
    } catch (e) {
      if (e instanceof SceneSpecError) {
        throw new GenerationError('generation_failed', 'The scene to edit is not a valid scene.', false, { cause: e });
      }
      throw e;
    }
  }
}
