import type { StudioApiClient } from '../api/studio-api.client';
import { StudioApiError } from '../api/studio-api.client';
import type { SceneSpec } from '../api/studio-api.types';
import { meshToShow } from './scene-artifacts';
import { parseSceneGlb, type LoadedModel } from '../viewport/scene-loader';

export interface VersionLoaderHooks {
  onLoaded(version: number, spec: SceneSpec, model: LoadedModel): void;
  onProgress(loadingVersion: number | null, error: string | null): void;
}

/**
 * Fetches and parses scene versions, newest wins: a request for an older version than the one
 * shown or loading is ignored, and a request that arrives mid-load is queued and replaces any
 * earlier queued one, so a burst of edits loads at most two files, not all of them.
 */
export class SceneVersionLoader {
  private shown: number | null = null;
  private loading: number | null = null;
  private queued: number | null = null;
  private failed: number | null = null;
  private readonly abort = new AbortController();

  constructor(
    private readonly api: StudioApiClient,
    private readonly hooks: VersionLoaderHooks,
  ) {}

  get loadingVersion(): number | null {
    return this.loading;
  }

  request(version: number): void {
    const newest = Math.max(this.shown ?? 0, this.loading ?? 0, this.queued ?? 0);
    if (version <= newest && version !== this.failed) return;
    if (this.loading !== null) {
      this.queued = version;
      return;
    }
    void this.load(version);
  }

  retry(): void {
    if (this.failed !== null && this.loading === null) void this.load(this.failed);
  }

  dispose(): void {
    this.abort.abort();
  }

  private async load(version: number): Promise<void> {
    this.loading = version;
    this.failed = null;
    this.hooks.onProgress(version, null);
    const signal = this.abort.signal;
    try {
      // The spec and the file list at once (both tiny), then the mesh the first frame waits for.
      const [spec, artifacts] = await Promise.all([this.api.sceneSpec(version, signal), this.api.artifacts(version, signal)]);
      const kind = meshToShow(artifacts);
      if (!kind) throw new NothingToShow();
      const model = await parseSceneGlb(await this.api.artifact(version, kind, signal));
      if (signal.aborted) return;
      this.shown = version;
      this.loading = null;
      this.hooks.onLoaded(version, normalizeSpec(spec), model);
      this.hooks.onProgress(null, null);
    } catch (e) {
      if (signal.aborted) return;
      this.loading = null;
      this.failed = version;
      this.hooks.onProgress(null, loadErrorMessage(version, e));
    }
    const next = this.queued;
    this.queued = null;
    if (next !== null && next > (this.shown ?? 0)) void this.load(next);
  }
}

/** Fills gaps in a spec so a partial one (older schema, a provider's) still renders. */
function normalizeSpec(spec: Partial<SceneSpec>): SceneSpec {
  return {
    sky: { top: spec.sky?.top ?? '#6fa8dc', horizon: spec.sky?.horizon ?? '#dfe9f3' },
    lighting: {
      sun: {
        direction: spec.lighting?.sun?.direction ?? [0.4, 0.8, 0.3],
        color: spec.lighting?.sun?.color ?? '#ffffff',
        intensity: spec.lighting?.sun?.intensity ?? 2.5,
      },
      ambient: { color: spec.lighting?.ambient?.color ?? '#ffffff', intensity: spec.lighting?.ambient?.intensity ?? 0.4 },
    },
    fog: spec.fog ?? null,
    cameras: Array.isArray(spec.cameras) ? spec.cameras : [],
  };
}

/** A version with neither a mesh nor a collider (a splat-only world): nothing this viewport draws yet. */
class NothingToShow extends Error {}

function loadErrorMessage(version: number, e: unknown): string {
  if (e instanceof NothingToShow) return `Version ${version} has no mesh this studio can show.`;
  if (e instanceof StudioApiError) {
    if (e.isNetwork) return `Version ${version} could not be downloaded. Check the connection and try again.`;
    if (e.status === 404) return `Version ${version} is not available.`;
  }
  return `Version ${version} could not be loaded.`;
}
