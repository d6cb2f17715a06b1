import type { StudioApiClient } from '../api/studio-api.client';
import type { SceneSpec } from '../api/studio-api.types';
import { SceneVersionLoader, type LoadedVersion } from '../scene/scene-version.loader';
import { ICONS, h, icon } from '../ui/dom';
import { disposeModel } from '../viewport/scene-loader';
import type { StudioViewport } from '../viewport/studio-viewport';
import { VersionCompare, type CompareState } from './version-compare';

export interface InspectorHost {
  api: StudioApiClient;
  viewport: StudioViewport;
  /** The main viewport's frame (the compare view is laid over it) and the area holding it (the banner). */
  viewportFrame: HTMLElement;
  viewportArea: HTMLElement;
  /** The newest version the studio has loaded (what "latest" shows). */
  latestLoaded(): number | null;
  announce(text: string): void;
  /** Something a panel shows changed (what is viewed, compared, loading). */
  onChange(): void;
}

export interface InspectorState {
  /** The version held on screen instead of the latest; null while following the latest. */
  viewing: number | null;
  /** The version the main viewport draws now. */
  shown: number | null;
  /** A version being fetched for the main viewport. */
  loading: number | null;
  compare: CompareState | null;
}

interface HeldVersion {
  version: number;
  spec: SceneSpec;
  loaded: LoadedVersion;
}

/**
 * Looking at any version of the scene without changing it: a history entry shows its version
 * ("Viewing version 2", with the way back to the latest), and two versions can be compared with
 * a wipe. While a version is held, new versions (edits finishing) are kept aside and shown when
 * the user goes back to the latest, never swapped in under them.
 */
export class VersionInspector {
  readonly banner: HTMLElement;
  private readonly bannerText = h('span', { className: 'inspect-banner-text', attrs: { id: 'inspect-banner-text' } });
  private viewing: number | null = null;
  private loading: number | null = null;
  private loadError: string | null = null;
  private loader: SceneVersionLoader | null = null;
  /** The newest version that arrived while another was held. */
  private held: HeldVersion | null = null;
  private compare: VersionCompare | null = null;

  constructor(private readonly host: InspectorHost) {
    const back = h(
      'button',
      { className: 'button button-small', attrs: { type: 'button', id: 'inspect-back' }, on: { click: () => this.backToLatest() } },
      [icon([...ICONS.retry]), 'Back to latest'],
    );
    // Not a live region: every change it shows is also announced once through the studio's own.
    this.banner = h('div', { className: 'inspect-banner', attrs: { id: 'inspect-banner', hidden: true } }, [this.bannerText, back]);
    host.viewportArea.append(this.banner);
  }

  get state(): InspectorState {
    return { viewing: this.viewing, shown: this.host.viewport.loadedVersion, loading: this.loading, compare: this.compare?.state ?? null };
  }

  get comparing(): boolean {
    return this.compare !== null;
  }

  /**
   * StudioScene offers each newly loaded latest version here first: while a version is held it is
   * kept aside (true), otherwise the caller shows it (false).
   */
  offerLatest(version: number, spec: SceneSpec, loaded: LoadedVersion): boolean {
    if (this.viewing === null) return false;
    if (this.held) release(this.held.loaded);
    this.held = { version, spec, loaded };
    this.render();
    return true;
  }

  /** Shows `version` in the viewport, held there until the user goes back to the latest. */
  view(version: number): void {
    this.stopCompare(false);
    if (version === this.latestVersion() && this.viewing === null) return this.announceShown(version);
    if (version === this.latestVersion()) return this.backToLatest();
    this.hold(version);
    this.host.announce(`Viewing version ${version}. The latest is version ${this.latestVersion() ?? '…'}.`);
  }

  /** Compares two versions with a wipe: `a` in the viewport, `b` right of the divider. */
  startCompare(a: number, b: number): { ok: true } | { ok: false; message: string } {
    if (a === b) return { ok: false, message: 'Choose two different versions.' };
    this.stopCompare(false);
    this.hold(a);
    try {
      this.compare = new VersionCompare(this.host.api, this.host.viewport, this.host.viewportFrame, a, b, (message) => {
        this.host.announce(message);
        this.host.onChange();
      });
    } catch {
      return { ok: false, message: 'This browser cannot draw a second view to compare with.' };
    }
    this.render();
    this.host.announce(`Comparing version ${a} (left) with version ${b} (right). Drag the divider, or use the arrow keys on it.`);
    this.compare.focusDivider();
    return { ok: true };
  }

  stopCompare(announce = true): void {
    if (!this.compare) return;
    this.compare.dispose();
    this.compare = null;
    // Version A stays on screen; when that is the latest, nothing is held any more.
    if (announce && this.viewing === this.latestVersion()) this.viewing = null;
    this.render();
    if (announce) this.host.announce('Comparison closed.');
  }

  /** Follows the latest version again: the one kept aside, or the newest loaded, fetched anew. */
  backToLatest(): void {
    this.stopCompare(false);
    this.loader?.dispose();
    this.loader = null;
    this.loading = null;
    this.loadError = null;
    this.viewing = null;
    const held = this.held;
    this.held = null;
    const latest = this.latestVersion();
    if (held && (latest === null || held.version >= latest)) {
      this.host.viewport.showScene(held.version, held.spec, held.loaded);
    } else {
      if (held) release(held.loaded);
      // Holding another version gave the latest's meshes back; fetch them again.
      if (latest !== null && this.host.viewport.loadedVersion !== latest) this.load(latest, true);
    }
    this.render();
    if (latest !== null) this.host.announce(`Back to the latest version, ${latest}.`);
  }

  dispose(): void {
    this.stopCompare(false);
    this.loader?.dispose();
    if (this.held) release(this.held.loaded);
    this.held = null;
  }

  private hold(version: number): void {
    this.viewing = version;
    if (this.host.viewport.loadedVersion === version && this.loading === null) {
      this.render();
      return;
    }
    this.load(version, false);
  }

  /** Fetches one version for the main viewport; a newer request cancels an older one. */
  private load(version: number, asLatest: boolean): void {
    this.loader?.dispose();
    this.loading = version;
    this.loadError = null;
    const loader = new SceneVersionLoader(this.host.api, {
      onLoaded: (v, spec, loaded) => {
        // Going back to the latest and a new version landing meanwhile: the newer one stays.
        const stale = asLatest ? this.viewing !== null || (this.latestVersion() ?? 0) > v : this.viewing !== v;
        if (stale || this.loader !== loader) return release(loaded);
        this.host.viewport.showScene(v, spec, loaded);
        if (!asLatest) this.announceShown(v);
      },
      onProgress: (loadingVersion, error) => {
        if (this.loader !== loader) return;
        this.loading = loadingVersion;
        this.loadError = error;
        if (error) this.host.announce(error);
        this.render();
      },
    });
    this.loader = loader;
    loader.request(version);
    this.render();
  }

  private latestVersion(): number | null {
    return this.held?.version ?? this.host.latestLoaded();
  }

  private announceShown(version: number): void {
    this.host.announce(`Version ${version} is on screen.`);
    this.render();
  }

  private render(): void {
    const viewing = this.viewing;
    this.banner.hidden = viewing === null;
    if (viewing !== null) {
      const latest = this.latestVersion();
      const what = this.compare ? `Comparing version ${this.compare.a} with version ${this.compare.b}` : `Viewing version ${viewing}`;
      const loading = this.loadError ? ` · ${this.loadError}` : this.loading !== null ? ' · loading…' : '';
      this.bannerText.textContent = `${what}${loading} · latest is version ${latest ?? '…'}`;
    }
    this.host.viewportArea.dataset.inspect = this.compare ? 'compare' : viewing === null ? 'latest' : 'version';
    this.host.onChange();
  }
}

/** A loaded version that will not be shown: its GPU buffers go back now, not at the next GC. */
function release(loaded: LoadedVersion): void {
  disposeModel(loaded.model.root);
  loaded.splat?.layer.dispose();
}
