import type { StudioApiClient } from '../api/studio-api.client';
import { SceneVersionLoader } from '../scene/scene-version.loader';
import { h } from '../ui/dom';
import type { CameraRig } from '../viewport/camera-rig';
import { StudioViewport } from '../viewport/studio-viewport';

const KEY_STEP = 0.05;

export interface CompareState {
  a: number;
  b: number;
  /** Where the divider is, 0 (left edge) to 1: version A left of it, version B right of it. */
  split: number;
  /** The version the second view draws (null until B has loaded). */
  shownB: number | null;
  /** Where the second view's camera is: the main camera's position whenever they are in step. */
  cameraPosition: [number, number, number];
  loadError: string | null;
}

/**
 * A wipe between two versions: the main viewport keeps drawing version A, and a second viewport,
 * laid exactly over it, draws version B clipped to the right of a draggable divider. The second
 * viewport follows the main camera every frame (pose and lens), so orbiting either side moves both
 * and the comparison is always of the same shot. Two renderers rather than one with a scissor:
 * each version keeps its own sky, fog, lights and splat renderer, untouched.
 */
export class VersionCompare {
  private readonly frame = h('div', { className: 'compare-frame', attrs: { 'aria-hidden': 'true' } });
  private readonly divider: HTMLElement;
  private readonly labelA: HTMLElement;
  private readonly labelB: HTMLElement;
  private readonly view: StudioViewport;
  private readonly loader: SceneVersionLoader;
  private readonly detach: () => void;
  private syncedRevision = -1;
  private split = 0.5;
  private loadError: string | null = null;
  private dragging: number | null = null;

  /** Throws when the browser cannot give a second WebGL context; the caller says so. */
  constructor(
    api: StudioApiClient,
    private readonly main: StudioViewport,
    /** The main viewport's frame: the second view is laid over it, the divider on top. */
    private readonly host: HTMLElement,
    readonly a: number,
    readonly b: number,
    private readonly onLoadError: (message: string) => void,
  ) {
    host.append(this.frame);
    try {
      this.view = new StudioViewport(this.frame);
    } catch (e) {
      this.frame.remove();
      throw e;
    }
    this.labelA = h('span', { className: 'compare-label compare-label-a', text: `A · version ${a}`, attrs: { 'aria-hidden': 'true' } });
    this.labelB = h('span', { className: 'compare-label compare-label-b', text: `B · version ${b}`, attrs: { 'aria-hidden': 'true' } });
    this.divider = h(
      'div',
      {
        className: 'compare-divider',
        attrs: {
          id: 'compare-divider',
          role: 'slider',
          tabindex: 0,
          'aria-label': `Wipe between version ${a} (left) and version ${b} (right)`,
          'aria-orientation': 'horizontal',
          'aria-valuemin': 0,
          'aria-valuemax': 100,
        },
        on: {
          pointerdown: (event) => this.startDrag(event),
          pointermove: (event) => this.drag(event),
          pointerup: (event) => this.endDrag(event),
          pointercancel: (event) => this.endDrag(event),
          keydown: (event) => this.onKey(event),
        },
      },
      [h('span', { className: 'compare-handle', attrs: { 'aria-hidden': 'true' } })],
    );
    host.append(this.labelA, this.labelB, this.divider);
    this.setSplit(this.split);

    this.detach = main.addFrameListener(() => this.follow());
    this.loader = new SceneVersionLoader(api, {
      onLoaded: (version, spec, loaded) => {
        this.view.showScene(version, spec, loaded);
        this.follow(true);
      },
      onProgress: (_loading, error) => {
        this.loadError = error;
        if (error) this.onLoadError(error);
      },
    });
    this.loader.request(b);
  }

  get state(): CompareState {
    return {
      a: this.a,
      b: this.b,
      split: this.split,
      shownB: this.view.loadedVersion,
      cameraPosition: this.view.camera.position.toArray(),
      loadError: this.loadError,
    };
  }

  setSplit(fraction: number): void {
    this.split = Math.min(1, Math.max(0, fraction));
    const percent = Math.round(this.split * 1000) / 10;
    // CSSOM writes, which the page's `style-src 'self'` allows (style attributes it would not).
    this.frame.style.clipPath = `inset(0 0 0 ${percent}%)`;
    this.divider.style.left = `${percent}%`;
    this.divider.setAttribute('aria-valuenow', String(Math.round(percent)));
    this.divider.setAttribute(
      'aria-valuetext',
      `${Math.round(percent)}% version ${this.a}, ${Math.round(100 - percent)}% version ${this.b}`,
    );
  }

  focusDivider(): void {
    this.divider.focus();
  }

  dispose(): void {
    this.detach();
    this.loader.dispose();
    this.view.dispose();
    this.frame.remove();
    this.divider.remove();
    this.labelA.remove();
    this.labelB.remove();
  }

  /** The second view takes the main camera's pose and lens whenever it changed. */
  private follow(force = false): void {
    const rig = this.main.rig;
    if (!force && rig.revision === this.syncedRevision) return;
    this.syncedRevision = rig.revision;
    copyRig(rig, this.view.rig);
    if (this.view.depthOfFieldActive !== this.main.depthOfFieldActive) void this.view.setDepthOfField(this.main.depthOfFieldActive);
  }

  private startDrag(event: PointerEvent): void {
    this.dragging = event.pointerId;
    this.divider.setPointerCapture(event.pointerId);
    this.divider.focus({ preventScroll: true });
    event.preventDefault();
  }

  private drag(event: PointerEvent): void {
    if (this.dragging !== event.pointerId) return;
    const rect = this.host.getBoundingClientRect();
    if (rect.width > 0) this.setSplit((event.clientX - rect.left) / rect.width);
  }

  private endDrag(event: PointerEvent): void {
    if (this.dragging !== event.pointerId) return;
    this.dragging = null;
    if (this.divider.hasPointerCapture(event.pointerId)) this.divider.releasePointerCapture(event.pointerId);
  }

  private onKey(event: KeyboardEvent): void {
    const steps: Record<string, number> = { ArrowLeft: -KEY_STEP, ArrowDown: -KEY_STEP, ArrowRight: KEY_STEP, ArrowUp: KEY_STEP };
    if (event.key in steps) this.setSplit(this.split + steps[event.key]);
    else if (event.key === 'Home') this.setSplit(0);
    else if (event.key === 'End') this.setSplit(1);
    else return;
    // The viewport's own keys (arrows orbit) must not also move the camera.
    event.preventDefault();
    event.stopPropagation();
  }
}

function copyRig(from: CameraRig, to: CameraRig): void {
  to.position.copy(from.position);
  to.yaw = from.yaw;
  to.pitch = from.pitch;
  to.roll = from.roll;
  to.orbitDistance = from.orbitDistance;
  to.focalLengthMm = from.focalLengthMm;
  to.focusDistanceM = from.focusDistanceM;
  to.fNumber = from.fNumber;
  to.navigation = from.navigation;
  to.touch();
}
