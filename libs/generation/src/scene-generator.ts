import { SceneSpec } from './scene-spec';

/** A source image as the generator receives it: the stored bytes plus validated metadata. */
export interface SourceImageInput {
  bytes: Buffer;
  format: 'png' | 'jpeg' | 'webp';
  /** As displayed (after EXIF orientation). */
  width: number;
  height: number;
  sha256: string;
}

export interface GenerationRequest {
  sceneId: string;
  /** The version being produced: 1 for creation, n + 1 for an edit of version n. */
  version: number;
  /** The prompt the scene was created from (edits keep it for context). */
  prompt: string;
  source: SourceImageInput | null;
  /** Present for `scene.edit`: the spec of the current version and the instruction to apply. */
  edit: { previousSpec: SceneSpec; instruction: string } | null;
}

export interface GeneratedScene {
  spec: SceneSpec;
  /** glTF 2.0 binary that three.js's GLTFLoader loads. */
  glb: Buffer;
}

export type GenerationErrorCode = 'generation_failed' | 'provider_unavailable' | 'provider_timeout' | 'provider_rejected';

/**
 * A failure the worker can report safely: `message` is ours, written for partners, and never
 * contains provider output or exception text. `retryable` tells the worker whether another
 * attempt may succeed (network errors, timeouts, 5xx, 429) or not (bad input, bad output).
 */
export class GenerationError extends Error {
  override name = 'GenerationError';

  constructor(
    readonly code: GenerationErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The port every generator implements. Implementations are deterministic where they can be:
 * the same request (prompt, source bytes, version, edit) gives byte-identical files.
 */
export abstract class SceneGenerator {
  abstract generate(request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene>;
}
