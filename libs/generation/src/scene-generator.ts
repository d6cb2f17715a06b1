import { SceneView } from '@scene-studio/world-engine';

/** A source image as the generator receives it: the stored bytes plus validated metadata. */
export interface SourceImageInput {
  bytes: Buffer;
  format: 'png' | 'jpeg' | 'webp';
  /** As displayed (after EXIF orientation). */
  width: number;
  height: number;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
}

export interface GenerationRequest {
  sceneId: string;
  /** The version being produced: 1 for creation, n + 1 for an edit of version n. */
  version: number;
  /** The prompt the scene was created from (edits keep it for context). */
  prompt: string;
  source: SourceImageInput | null;
  /**
   * Present for `scene.edit`: the view of the current version and the instruction to apply. A
   * generator that cannot edit what it is given regenerates from the prompt and the instruction.
   */
  edit: { previous: SceneView; instruction: string } | null;
  /**
   * Stable for one operation across retries and worker restarts: sent as the idempotency key of
   * the submit where the provider accepts one, so a submit repeated after a crash is not a second job.
   */
  idempotencyKey: string;
  /**
   * The organization is a test organization: a directive at the start of the prompt (or the edit
   * instruction) picks a deterministic outcome (TestModeSceneGenerator). Absent: a live one.
   */
  testMode?: boolean;
  /** When the operation was accepted: what a test-mode throttle counts its pause from. */
  acceptedAt?: Date;
}

/**
 * The files a scene version can carry; which ones depends on the generator. `splat-preview` is
 * ours, never a provider's: a coarse copy of a large splat (splat-previews.ts).
 */
export const ARTIFACT_KINDS = ['mesh', 'splat', 'splat-preview', 'collider', 'panorama', 'thumbnail'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export interface SceneArtifact {
  kind: ArtifactKind;
  /** `model/gltf-binary` (mesh, collider), `application/vnd.niantic.spz` (splat, splat-preview), `image/png|jpeg|webp`. */
  contentType: string;
  bytes: Buffer;
}

export interface GeneratedScene {
  /** What the studio reads besides the files (sky, lighting, camera presets, edit history). */
  spec: SceneView;
  /** At least a mesh or a splat; each kind at most once. */
  artifacts: SceneArtifact[];
}

/**
 * A job at a provider, as the worker persists it on the operation before anything else: the
 * provider's id and whatever small state the adapter needs to poll, fetch or cancel it (Meshy's
 * preview id once it moved on to refine, for instance). JSON, a few hundred bytes at most.
 */
export interface ProviderJob {
  id: string;
  state?: Record<string, string | number | boolean | null>;
}

/** What a submit did: a job to poll, or (in-process generators) the finished scene at once. */
export type SubmitOutcome = { job: ProviderJob } | { scene: GeneratedScene };

/** A provider job's state, as one poll sees it. */
export type JobPoll =
  | {
      status: 'running';
      /** 0 to 1 when the provider says; the worker never lets a partner see it go down. */
      progress: number | null;
      /** The job moved on (another id or state): persisted before the next poll. */
      job?: ProviderJob;
      /** The provider asked for this pause before the next poll (Retry-After). */
      retryAfterMs?: number;
    }
  | {
      status: 'succeeded';
      job?: ProviderJob;
      /** What the provider said the job cost (World Labs credits), for the organization's usage. */
      costUnits?: number;
    }
  | { status: 'failed'; error: GenerationError; costUnits?: number }
  /** The job was cancelled at the provider, not by us: the operation ends `cancelled`. */
  | { status: 'cancelled'; costUnits?: number };

/** Whose job it is: what an adapter may find the provider's objects by (Marble's tags). */
export interface ProviderJobOwner {
  sceneId: string;
  operationId: string;
}

/** One object a provider held for a job, and what a delete did to it. */
export interface ProviderObjectErasure {
  /** What it is at the provider: `world`, `media_asset` (Marble), `task` (Meshy), `generation` (protocol v2). */
  kind: string;
  id: string;
  /**
   * `deleted`: deleted now; `absent`: already gone (deleted before, expired); `kept`: the provider
   * documents no way to delete it (docs/operations.md, "Data we keep", says how long it stays).
   */
  outcome: 'deleted' | 'absent' | 'kept';
}

/**
 * What a delete did: every object of the job accounted for, or `pending`: the provider is still
 * making something for the job (a world being generated), so deleting now would miss it; ask again
 * later.
 */
export type ProviderErasure = { status: 'done'; objects: ProviderObjectErasure[] } | { status: 'pending' };

/**
 * Our safe error codes. `provider_quota_exceeded`: the operator's account at the provider is out
 * of credits (HTTP 402); retrying will not help until the operator tops it up.
 */
export type GenerationErrorCode =
  'generation_failed' | 'provider_unavailable' | 'provider_timeout' | 'provider_rejected' | 'provider_quota_exceeded';

/**
 * A failure the worker can report safely: `message` is ours, written for partners, and never
 * contains provider output or exception text. `retryable` tells the worker whether another
 * attempt may succeed (network errors, timeouts, 5xx, 429) or not (bad input, bad output).
 * `retryAfterMs`: the provider asked for this pause (429 with Retry-After).
 */
export class GenerationError extends Error {
  override name = 'GenerationError';

  constructor(
    readonly code: GenerationErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; retryAfterMs?: number; simulated?: boolean },
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
    this.simulated = options?.simulated === true;
  }

  readonly retryAfterMs: number | undefined;
  /** Made up by test mode (TestModeSceneGenerator), not a provider's: kept out of the provider's metrics. */
  readonly simulated: boolean;
}

/**
 * The port every generator implements, shaped after the asynchronous jobs real providers run
 * (World Labs, Meshy: from half a minute to many minutes): `submit` starts a job, `poll` reads
 * its state, `fetch` downloads and checks the result, `cancel` stops it where the provider can.
 * The worker persists the job between calls, so none of them may rely on memory of an earlier
 * call: after a crash another process continues with the persisted job.
 *
 * In-process generators (the procedural one) answer `submit` with the finished scene and are
 * never polled. Implementations are deterministic where they can be.
 */
export abstract class SceneGenerator {
  /** Stored with a job: a job is resumed only by the generator that started it. */
  abstract readonly name: string;

  abstract submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome>;

  poll(_job: ProviderJob, _signal?: AbortSignal): Promise<JobPoll> {
    return Promise.reject(new Error(`${this.name} does not run jobs to poll`));
  }

  fetch(_job: ProviderJob, _request: GenerationRequest, _signal?: AbortSignal): Promise<GeneratedScene> {
    return Promise.reject(new Error(`${this.name} does not run jobs to fetch`));
  }

  /** Best effort; false where the provider has no way to cancel (the job runs on, its result unused). */
  cancel(_job: ProviderJob, _signal?: AbortSignal): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * Deletes what the provider keeps of a job (its copies of the prompt, the instructions, the
   * source image and the result), where the provider documents a delete, once the scene it made
   * is erased. Idempotent: an object already gone is `absent`. Throws a GenerationError when the
   * provider fails; the caller retries later. Generators that keep nothing anywhere (the procedural
   * one runs in process) have nothing to delete.
   */
  delete(_job: ProviderJob, _owner: ProviderJobOwner, _signal?: AbortSignal): Promise<ProviderErasure> {
    return Promise.resolve({ status: 'done', objects: [] });
  }
}

/**
 * A generator that hands every call to `inner` and changes the scenes it finishes, whichever way
 * they finish (at once from `submit`, or from `fetch` after polling): the file scrubbing and the
 * splat previews wrap every generator so. Jobs stay `inner`'s: its name is theirs.
 */
export abstract class FinishedSceneTransform extends SceneGenerator {
  constructor(readonly inner: SceneGenerator) {
    super();
  }

  /** What a finished scene becomes. */
  protected abstract transform(scene: GeneratedScene): GeneratedScene | Promise<GeneratedScene>;

  get name(): string {
    return this.inner.name;
  }

  async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    const outcome = await this.inner.submit(request, signal);
    return 'scene' in outcome ? { scene: await this.transform(outcome.scene) } : outcome;
  }

  override poll(job: ProviderJob, signal?: AbortSignal): Promise<JobPoll> {
    return this.inner.poll(job, signal);
  }

  override async fetch(job: ProviderJob, request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    return this.transform(await this.inner.fetch(job, request, signal));
  }

  override cancel(job: ProviderJob, signal?: AbortSignal): Promise<boolean> {
    return this.inner.cancel(job, signal);
  }

  override delete(job: ProviderJob, owner: ProviderJobOwner, signal?: AbortSignal): Promise<ProviderErasure> {
    return this.inner.delete(job, owner, signal);
  }
}
