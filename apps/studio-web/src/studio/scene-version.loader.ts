import type { StudioApiClient } from '../api/studio-api.client';
import { StudioApiError } from '../api/studio-api.client';
import type { SceneSpec } from '../api/studio-api.types';
import { versionParts } from './scene-artifacts';
import { combineModels, parseSceneGlb, type LoadedModel, type WorldPlacement } from '../viewport/scene-loader';
import type { LoadedSplat } from '../viewport/splat-layer';
import type { SplatModule } from '../viewport/studio-viewport';
import { spzSplatCount } from './spz-header';
import type { SplatLoadProgress } from './splat-progress';

export type { SplatLoadProgress };

/** What a version draws: its meshes (one root) and, for a splat world, the splat and Spark's module. */
export interface LoadedVersion {
  model: LoadedModel;
  splat: { layer: LoadedSplat; module: SplatModule } | null;
}

export interface VersionLoaderHooks {
  onLoaded(version: number, spec: SceneSpec, loaded: LoadedVersion): void;
  onProgress(loadingVersion: number | null, error: string | null): void;
  onSplatProgress?(progress: SplatLoadProgress): void;
}

/** Enough compressed bytes to inflate an SPZ header from. */
const HEADER_PROBE_BYTES = 1024;

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
      // The spec and the file list at once (both tiny), then the files the first frame waits for,
      // all in parallel; Spark's chunk (lazy, its own file) downloads alongside a splat.
      const [spec, artifacts] = await Promise.all([this.api.sceneSpec(version, signal), this.api.artifacts(version, signal)]);
      const parts = versionParts(artifacts);
      if (!parts) throw new NothingToShow();
      const [meshes, splat] = await Promise.all([
        Promise.all(
          parts.meshes.map(async (part) => ({
            model: await parseSceneGlb(await this.api.artifact(version, part.kind, signal)),
            visible: part.visible,
          })),
        ),
        parts.splat ? this.loadSplat(version, signal) : null,
      ]);
      const world = worldTransform(spec.world);
      if (splat) placeSplat(splat.layer, world);
      const loaded: LoadedVersion = { model: combineModels(meshes, splat?.layer.bounds ?? null, world), splat };
      if (signal.aborted) {
        // The page is going away: give Spark's buffers back rather than leave them to the GC.
        splat?.layer.dispose();
        return;
      }
      this.shown = version;
      this.loading = null;
      this.hooks.onLoaded(version, normalizeSpec(spec), loaded);
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

  private async loadSplat(version: number, signal: AbortSignal): Promise<LoadedVersion['splat']> {
    const module = import('../viewport/splat-layer');
    const progress: SplatLoadProgress = { phase: 'downloading', receivedBytes: 0, totalBytes: null, splats: null };
    let head: Uint8Array | null = new Uint8Array(0);
    const report = () => this.hooks.onSplatProgress?.({ ...progress });
    const bytes = await this.api.artifactWithProgress(
      version,
      'splat',
      (chunk, received, total) => {
        progress.receivedBytes = received;
        progress.totalBytes = total;
        if (head) {
          const joined = new Uint8Array(head.length + chunk.length);
          joined.set(head);
          joined.set(chunk, head.length);
          head = joined;
          if (head.length >= HEADER_PROBE_BYTES) {
            const probe = head;
            head = null;
            void spzSplatCount(probe).then((n) => {
              progress.splats = n;
              report();
            });
          }
        }
        report();
      },
      signal,
    );
    if (head && head.length > 0) progress.splats = await spzSplatCount(head);
    progress.phase = 'decoding';
    report();
    const spark = await module;
    if (signal.aborted) return null;
    const layer = await spark.loadSplat(bytes);
    progress.splats = layer.count;
    report();
    return { layer, module: spark };
  }
}

/**
 * A provider's world in metres, ground at y = 0 (World Labs' `semantics_metadata`, carried in the
 * spec as `world`): metric = raw × metricScale, then groundOffset down. Identity without it.
 */
function worldTransform(world: SceneSpec['world'] | undefined): WorldPlacement {
  const scale = world && Number.isFinite(world.metricScale) && world.metricScale > 0 ? world.metricScale : 1;
  const yOffset = world && Number.isFinite(world.groundOffset) ? -world.groundOffset : 0;
  return { scale, yOffset };
}

function placeSplat(layer: LoadedSplat, world: WorldPlacement): void {
  layer.object.scale.setScalar(world.scale);
  layer.object.position.y = world.yOffset;
  layer.object.updateMatrixWorld(true);
  layer.bounds.center.multiplyScalar(world.scale);
  layer.bounds.center.y += world.yOffset;
  layer.bounds.radius *= world.scale;
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
    ...(spec.world ? { world: spec.world } : {}),
  };
}

/** A version with no mesh, collider or splat: nothing this viewport can draw. */
class NothingToShow extends Error {}

function loadErrorMessage(version: number, e: unknown): string {
  if (e instanceof NothingToShow) return `Version ${version} has nothing this studio can show.`;
  if (e instanceof StudioApiError) {
    if (e.isNetwork) return `Version ${version} could not be downloaded. Check the connection and try again.`;
    if (e.status === 404) return `Version ${version} is not available.`;
  }
  return `Version ${version} could not be loaded.`;
}
