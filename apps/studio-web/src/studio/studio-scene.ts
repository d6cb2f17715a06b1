import type { StudioApiClient } from '../api/studio-api.client';
import type { CameraPreset, SceneSpec, SceneState } from '../api/studio-api.types';
import type { EditPanel } from '../edit/edit-panel.view';
import type { EditSession } from '../edit/edit-session';
import type { VersionInspector } from '../edit/version-inspector';
import type { PerformWorkflow } from '../perform/perform-workflow';
import { generatingLabel, type SceneDisplayState } from '../ui/scene-status.view';
import type { LoadedSplat } from '../viewport/splat-layer';
import type { StudioViewport } from '../viewport/studio-viewport';
import { SceneVersionLoader, type LoadedVersion, type SplatLoadProgress } from '../scene/scene-version.loader';
import { splatDetailText, splatLoadingText } from '../scene/splat-progress';
import type { StudioShell } from './studio-shell.view';

export const NO_WEBGL = 'This browser cannot show the 3D view: it needs WebGL 2.';

export interface SceneHost {
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
}

/** Where the scene shows; null where the session's mode (or the browser) has no such part. */
export interface SceneViews {
  shell: StudioShell;
  viewport: StudioViewport | null;
  perform: PerformWorkflow | null;
  editPanel: EditPanel | null;
  edits: EditSession | null;
  inspector: VersionInspector | null;
}

/**
 * The scene as the studio knows it: the server's status, version and progress, the version
 * being downloaded and the one on screen, and the viewport overlay that explains any gap between
 * them. Versions are loaded as the server announces them, newest wins (SceneVersionLoader).
 */
export class StudioScene {
  readonly state: SceneDisplayState = {
    status: 'generating',
    version: null,
    loadedVersion: null,
    loadingVersion: null,
    loadError: null,
    error: null,
    progress: null,
    stage: null,
  };
  private loader: SceneVersionLoader | null = null;
  private views: SceneViews | null = null;
  private lastPosted: string | null = null;
  /** The newest splat download's progress: what the first load's overlay says. */
  private splatProgress: SplatLoadProgress | null = null;
  /**
   * Each version's world, as it comes in behind its preview: the note over the viewport tells
   * of the version on screen only, whatever a newer version downloads meanwhile.
   */
  private readonly worldProgress = new Map<number, SplatLoadProgress>();

  constructor(private readonly host: SceneHost) {}

  /**
   * Starts downloading the session's current version, before the UI exists: building the UI and
   * the WebGL context overlaps with the download.
   */
  load(api: StudioApiClient, initial: SceneState): void {
    this.loader = new SceneVersionLoader(api, {
      onLoaded: (version, spec, loaded) => this.show(version, spec, loaded),
      onSplatUpgraded: (_version, loaded, world) => this.upgradeSplat(loaded, world),
      onSplatProgress: (progress) => {
        this.splatProgress = progress;
        // A world on screen needs no note: only those on their way (or failed) are kept.
        if (progress.level === 'full' && progress.phase === 'done') this.worldProgress.delete(progress.version);
        else if (progress.level === 'full') this.worldProgress.set(progress.version, progress);
        this.render();
      },
      onProgress: (loadingVersion, error) => {
        if (loadingVersion === null) this.splatProgress = null;
        this.state.loadingVersion = loadingVersion;
        this.state.loadError = error;
        if (error) this.host.post('error', { code: 'scene_unavailable', message: error });
        this.render();
      },
    });
    if (initial.status === 'ready' && typeof initial.version === 'number') this.loader.request(initial.version);
  }

  /** The UI is built: from now on the scene's state is shown. */
  attach(views: SceneViews): void {
    this.views = views;
  }

  /** Loads a version known to exist (an edit that succeeded) without waiting for the stream. */
  request(version: number): void {
    this.loader?.request(version);
  }

  apply(state: Pick<SceneState, 'status' | 'version'> & Partial<SceneState>): void {
    this.state.status = state.status;
    // While the first version generates, the server may already name it; it is not loadable yet.
    this.state.version = state.version ?? this.state.version;
    this.state.error = state.status === 'failed' ? (state.error ?? null) : null;
    this.state.progress = state.status === 'generating' ? (state.progress ?? null) : null;
    this.state.stage = state.status === 'generating' ? (state.stage ?? null) : null;
    const key = `${state.status}:${state.version ?? ''}`;
    if (key !== this.lastPosted) {
      this.lastPosted = key;
      this.host.post('scene.status', { status: state.status, version: state.version ?? null });
      if (state.status === 'generating') this.host.announce('The scene is being generated.');
      if (state.status === 'failed') this.host.announce(`The scene could not be generated. ${this.state.error?.message ?? ''}`.trim());
    }
    if (state.status === 'ready' && typeof state.version === 'number') {
      const edits = this.views?.edits;
      // A new version while edits are pending is most likely one of them finishing.
      if (edits?.pending && state.version > (this.state.loadedVersion ?? 0)) void edits.sync();
      this.loader?.request(state.version);
    }
    this.render();
  }

  dispose(): void {
    this.loader?.dispose();
  }

  /**
   * The world behind a version's preview has decoded. Whoever holds the version from now on holds
   * the world: the viewport swaps it in if it shows the preview; a version held aside (inspecting
   * another) gets it in place of its preview; a version already replaced frees it.
   */
  private upgradeSplat(loaded: LoadedVersion, world: LoadedSplat): void {
    const splat = loaded.splat;
    const preview = splat?.layer;
    if (!splat || !preview || preview.disposed) {
      world.dispose();
      return;
    }
    splat.layer = world;
    if (this.views?.viewport?.replaceSplat(preview, world)) {
      this.host.announce(`The whole world is on screen: ${world.count.toLocaleString('en')} splats.`);
    } else {
      preview.dispose();
    }
  }

  private show(version: number, spec: SceneSpec, loaded: LoadedVersion): Promise<void> | void {
    const { model } = loaded;
    const viewport = this.views?.viewport ?? null;
    const first = this.state.loadedVersion === null;
    if (first && viewport) {
      if (spec.cameras[0]) {
        viewport.rig.setFromPreset(spec.cameras[0]);
        // The studio opens at the first preset: say so, as if it had been chosen.
        this.views?.perform?.framing.presetApplied(spec.cameras[0].name);
      } else viewport.rig.setFromPreset(fallbackPreset(model.bounds.center.toArray(), model.bounds.radius));
    }
    // While another version is being looked at, the new one waits for the way back to the latest.
    const held = this.views?.inspector?.offerLatest(version, spec, loaded) ?? false;
    if (!held) viewport?.showScene(version, spec, loaded);
    this.views?.perform?.setPresets(spec.cameras);
    this.state.loadedVersion = version;
    const layer = loaded.splat?.layer;
    const splats = !layer
      ? ''
      : layer.level === 'preview'
        ? `: a preview of ${layer.count.toLocaleString('en')} splats while the whole world loads`
        : `: a world of ${layer.count.toLocaleString('en')} splats`;
    this.host.announce(
      held ? `Scene version ${version} is ready; go back to the latest to see it.` : `Scene version ${version} is on screen${splats}.`,
    );
    // Behind a preview the world decodes once the preview is on screen (the loader waits for this).
    return !held && layer?.level === 'preview' ? viewport?.whenSplatsDrawn() : undefined;
  }

  /** Tells the edit panel which version is the latest and which one is on screen. */
  syncVersions(): void {
    const inspector = this.views?.inspector ?? null;
    const inspected = inspector?.state ?? null;
    this.views?.editPanel?.setVersions(this.state.loadedVersion, inspected?.viewing ?? null, inspector?.comparing ?? false);
    this.views?.editPanel?.sceneCard.update(this.state, inspected?.viewing ?? null);
  }

  private render(): void {
    const views = this.views;
    if (!views) return;
    const { shell, editPanel } = views;
    const scene = this.state;
    shell.pill.update(scene);
    editPanel?.setSceneReady(scene.status === 'ready');
    this.syncVersions();
    if (!views.viewport) {
      shell.setOverlay({ kind: 'unavailable', text: NO_WEBGL });
    } else if (scene.status === 'failed') {
      shell.setOverlay({ kind: 'failed', text: scene.error?.message ?? 'The scene could not be generated.' });
    } else if (scene.status === 'generating' && scene.loadedVersion === null) {
      shell.setOverlay({ kind: 'generating', text: generatingLabel(scene.stage, scene.progress) });
    } else if (scene.loadError && scene.loadedVersion === null) {
      shell.setOverlay({ kind: 'load-error', text: scene.loadError, retry: () => this.loader?.retry() });
    } else if (scene.loadedVersion === null) {
      shell.setOverlay({ kind: 'loading', text: splatLoadingText(this.splatProgress) });
    } else {
      shell.setOverlay({ kind: 'none' });
    }
    // Only over a preview, and of its own world: any other download is not this note's business.
    const viewport = views.viewport;
    const shown = viewport?.splatStats.level === 'preview' ? viewport.loadedVersion : null;
    shell.setDetailNote(shown !== null ? splatDetailText(this.worldProgress.get(shown) ?? null) : null);
  }
}

/** A spec without cameras still gets a sensible view: back and above, looking at the middle. */
function fallbackPreset(center: number[], radius: number): CameraPreset {
  const [x, y, z] = center;
  return { id: 'fallback', name: 'Overview', position: [x, y + radius * 0.5, z + radius * 1.6], target: [x, y, z], focalLengthMm: 24 };
}
