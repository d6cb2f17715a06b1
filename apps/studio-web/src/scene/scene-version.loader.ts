import type { StudioApiClient } from '../api/studio-api.client';
import { StudioApiError } from '../api/studio-api.client';
import type { SceneSpec } from '../api/studio-api.types';
import { versionParts } from './scene-artifacts';
import { combineModels, parseSceneGlb, type LoadedModel } from '../viewport/scene-loader';
import { placeObject, placeSphere, worldPlacement, type WorldPlacement } from '../viewport/world-placement';
import type { LoadedSplat, SplatLevel } from '../viewport/splat-layer';
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
  /**
   * A version is ready to show. A returned promise says when its first frame is drawn: a world
   * behind a preview decodes only after that (or 5 s), so the two do not share the CPU.
   */
  onLoaded(version: number, spec: SceneSpec, loaded: LoadedVersion): void | Promise<void>;
  onProgress(loadingVersion: number | null, error: string | null): void;
  /** The splat download the user waits for: the first frame's, then (behind a preview) the world's. */
  onSplatProgress?(progress: SplatLoadProgress): void;
  /**
   * The world behind a preview has decoded (placed like the preview): the hook swaps it in for
   * `loaded.splat.layer`, the preview. Without this hook previews are never loaded: the version
   * waits for its world, as a comparison view does.
   */
  onSplatUpgraded?(version: number, loaded: LoadedVersion, world: LoadedSplat): void;
}

/** A world's decoding waits at most this long for its preview's first frame. */
const PREVIEW_FIRST_FRAME_WAIT_MS = 5000;

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
  /** The world behind the shown preview, still on its way: a newer version's load stops it. */
  private upgrading: AbortController | null = null;

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
    // Everything this version downloads and decodes, its world behind a preview included: stopped
    // when the page goes, when this version fails to load (the rest of it is not wanted), or when
    // a newer version is shown. (AbortSignal.any would need Safari 17.4.)
    const upgrade = new AbortController();
    const stop = () => upgrade.abort();
    signal.addEventListener('abort', stop, { once: true });
    upgrade.signal.addEventListener('abort', () => signal.removeEventListener('abort', stop), { once: true });
    const mine = upgrade.signal;
    try {
      // The spec and the file list at once (both tiny), then the files the first frame waits for,
      // all in parallel; Spark's chunk (lazy, its own file) downloads alongside a splat.
      const [spec, artifacts] = await Promise.all([this.api.sceneSpec(version, mine), this.api.artifacts(version, mine)]);
      const parts = versionParts(artifacts);
      if (!parts) throw new NothingToShow();
      const preview = parts.splat && parts.splatPreview && this.hooks.onSplatUpgraded !== undefined;
      // The world's bytes start downloading at once, also behind a preview (reported once it shows).
      const world = parts.splat ? this.download(version, 'splat', mine, !preview) : null;
      const [meshes, splat] = await Promise.all([
        Promise.all(
          parts.meshes.map(async (part) => ({
            model: await parseSceneGlb(await this.api.artifact(version, part.kind, mine)),
            visible: part.visible,
          })),
        ),
        world ? this.decode(preview ? this.download(version, 'splat-preview', mine, true) : world, mine) : null,
      ]);
      // Splat (or its preview), collider and mesh placed alike: metres, +Y up, ground at y = 0.
      const placement = worldPlacement(spec.world);
      if (splat) placeSplat(splat.layer, placement);
      const loaded: LoadedVersion = { model: combineModels(meshes, splat?.layer.bounds ?? null, placement), splat };
      if (signal.aborted) {
        // The page is going away: give Spark's buffers back rather than leave them to the GC.
        splat?.layer.dispose();
        return;
      }
      this.shown = version;
      this.loading = null;
      // The version on screen changes: the world behind the one before it is not wanted any more.
      this.upgrading?.abort();
      this.upgrading = preview ? upgrade : null;
      const drawn = this.hooks.onLoaded(version, normalizeSpec(spec), loaded);
      this.hooks.onProgress(null, null);
      if (preview && splat && world) void this.upgrade(version, loaded, world, placement, drawn, mine);
    } catch (e) {
      upgrade.abort();
      if (signal.aborted) return;
      this.loading = null;
      this.failed = version;
      this.hooks.onProgress(null, loadErrorMessage(version, e));
    }
    const next = this.queued;
    this.queued = null;
    if (next !== null && next > (this.shown ?? 0)) void this.load(next);
  }

  /**
   * Behind a preview: finishes the world's download, waits for the preview's first frame, decodes
   * the world and hands it over. A failure leaves the preview on screen, said in the progress.
   */
  private async upgrade(
    version: number,
    loaded: LoadedVersion,
    world: SplatDownload,
    placement: WorldPlacement,
    drawn: void | Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    world.reporting = true;
    world.report();
    try {
      await Promise.race([drawn, new Promise((resolve) => setTimeout(resolve, PREVIEW_FIRST_FRAME_WAIT_MS))]);
      // Nobody holds the preview any more (the version was replaced): the world is not wanted.
      if (loaded.splat?.layer.disposed) return;
      const full = await this.decode(world, signal);
      if (!full) return;
      placeSplat(full.layer, placement);
      this.hooks.onSplatUpgraded?.(version, loaded, full.layer);
    } catch {
      if (signal.aborted) return;
      world.progress.phase = 'failed';
      world.report();
    }
  }

  /** Starts downloading a version's SPZ, reporting bytes and (from its header) splats as they come. */
  private download(version: number, kind: 'splat' | 'splat-preview', signal: AbortSignal, reporting: boolean): SplatDownload {
    const level: SplatLevel = kind === 'splat' ? 'full' : 'preview';
    const progress: SplatLoadProgress = { version, level, phase: 'downloading', receivedBytes: 0, totalBytes: null, splats: null };
    const download: SplatDownload = {
      level,
      progress,
      reporting,
      report: () => {
        if (download.reporting) this.hooks.onSplatProgress?.({ ...progress });
      },
      bytes: Promise.resolve(new ArrayBuffer(0)),
    };
    let head: Uint8Array | null = new Uint8Array(0);
    download.bytes = (async () => {
      const bytes = await this.api.artifactWithProgress(
        version,
        kind,
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
                download.report();
              });
            }
          }
          download.report();
        },
        signal,
      );
      if (head && head.length > 0) progress.splats = await spzSplatCount(head);
      return bytes;
    })();
    // Awaited later (or never, when the version fails first); its failure is handled there.
    download.bytes.catch(() => undefined);
    return download;
  }

  /** Decodes a downloaded SPZ with Spark (its chunk loaded on first use). */
  private async decode(download: SplatDownload, signal: AbortSignal): Promise<LoadedVersion['splat']> {
    const module = import('../viewport/splat-layer');
    const bytes = await download.bytes;
    if (signal.aborted) return null;
    download.progress.phase = 'decoding';
    download.report();
    const spark = await module;
    if (signal.aborted) return null;
    const layer = await spark.loadSplat(bytes, download.level);
    // Stopped while Spark decoded (the version failed, or another replaced it): nobody will
    // hold this layer, so its buffers go back now.
    if (signal.aborted) {
      layer.dispose();
      return null;
    }
    download.progress.splats = layer.count;
    download.progress.phase = 'done';
    download.report();
    return { layer, module: spark };
  }
}

/** One SPZ on its way: its bytes, and its progress (told to the page only while `reporting`). */
interface SplatDownload {
  level: SplatLevel;
  progress: SplatLoadProgress;
  reporting: boolean;
  report(): void;
  bytes: Promise<ArrayBuffer>;
}

function placeSplat(layer: LoadedSplat, world: WorldPlacement): void {
  placeObject(layer.object, world);
  placeSphere(layer.bounds, world);
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
