import type { CameraRig } from '../viewport/camera-rig';
import { FrameGuides, type GuideId } from '../viewport/frame-guides.view';
import { fieldOfView, type AspectId, type DistanceUnit, type SensorId } from '../model/lens';
import type { StudioViewport } from '../viewport/studio-viewport';
import { CinemaControls, FOCUS_AID_NOTE } from './cinema-controls.view';
import { InMemorySavedViewStore, type SavedView, type SavedViewStore } from './saved-views';

export interface FramingHost {
  viewport: StudioViewport;
  announce(text: string): void;
  /** Where saved views live; the page's memory until the server's store is wired. */
  savedViews?: SavedViewStore;
}

export interface FramingState {
  frame: { sensor: SensorId; aspect: AspectId; filmWidthMm: number; filmHeightMm: number };
  distanceUnit: DistanceUnit;
  focusAid: boolean;
  guides: GuideId[];
  activeView: string | null;
  savedViews: { id: string; name: string }[];
}

/**
 * Framing like a cinema camera, beside the perform workflow: the sensor and aspect, prime stops
 * and typed focal lengths, the focus readout and aid, guides over the frame, which preset the
 * camera is at, and saved views. The perform workflow builds it, places its controls, and tells
 * it when a take starts or ends and when it jumps to a preset.
 */
export class FramingWorkflow {
  readonly controls: CinemaControls;
  readonly guides = new FrameGuides();
  private readonly store: SavedViewStore;
  private views: SavedView[] = [];
  private active: { name: string; key: string } | null = null;
  private checkedRevision = -1;
  private recording = false;
  private splatWorld = false;

  constructor(
    private readonly host: FramingHost,
    onDistanceUnit: (unit: DistanceUnit) => void,
  ) {
    this.store = host.savedViews ?? new InMemorySavedViewStore();
    this.controls = new CinemaControls(this.rig, {
      announce: (text) => host.announce(text),
      setFrame: (sensor, aspect) => this.setFrame(sensor, aspect),
      setFocusAid: (enabled) => host.viewport.setFocusAid(enabled),
      setGuide: (guide, enabled) => {
        this.guides.set(guide, enabled);
        this.guides.update(this.rig);
      },
      setDistanceUnit: onDistanceUnit,
      saveView: (name) => this.saveView(name),
      goToView: (id) => this.goToView(id),
      removeView: (id) => this.removeView(id),
    });
    void this.refreshViews();
  }

  private get rig(): CameraRig {
    return this.host.viewport.rig;
  }

  get distanceUnit(): DistanceUnit {
    return this.controls.distanceUnit;
  }

  get state(): FramingState {
    const frame = this.rig.frame;
    return {
      frame: { sensor: frame.sensor.id, aspect: frame.aspect.id, filmWidthMm: frame.film.width, filmHeightMm: frame.film.height },
      distanceUnit: this.controls.distanceUnit,
      focusAid: this.host.viewport.focusAidActive,
      guides: this.guides.enabled,
      activeView: this.active?.name ?? null,
      savedViews: this.views.map((v) => ({ id: v.id, name: v.name })),
    };
  }

  /** Every animation frame: the controls and the guides follow the rig. */
  onFrame(): void {
    this.controls.sync();
    this.guides.update(this.rig);
    const splatWorld = this.host.viewport.splatStats.count > 0;
    if (splatWorld !== this.splatWorld) {
      this.splatWorld = splatWorld;
      this.controls.setFocusAidNote(
        splatWorld ? 'Splats carry no depth, so the focus aid cannot mark them: use the focus readout and depth of field.' : FOCUS_AID_NOTE,
      );
    }
    if (this.active && this.rig.revision !== this.checkedRevision) {
      this.checkedRevision = this.rig.revision;
      // Focus and aperture are not framing: only moving, turning or zooming leaves a preset.
      if (framingKey(this.rig) !== this.active.key) this.setActive(null);
    }
  }

  /** The camera was just put at a preset or a saved view called `name`. */
  presetApplied(name: string): void {
    this.setActive(name);
  }

  setRecording(recording: boolean): void {
    this.recording = recording;
    this.controls.setRecording(recording);
  }

  private setActive(name: string | null): void {
    this.active = name === null ? null : { name, key: framingKey(this.rig) };
    this.checkedRevision = this.rig.revision;
    this.controls.setActiveView(name);
  }

  private setFrame(sensor: SensorId, aspect: AspectId): void {
    // A take keeps its frame (the video's size and the path's sensor): the selects are disabled
    // while it runs, and a change arriving anyway is refused.
    if (this.recording) return;
    this.rig.setFrame(sensor, aspect);
    const frame = this.rig.frame;
    const fov = fieldOfView(this.rig.focalLengthMm, frame);
    this.host.announce(
      `${frame.sensor.name}, ${frame.aspect.id}: field of view ${fov.horizontalDeg.toFixed(1)}° by ${fov.verticalDeg.toFixed(1)}°.`,
    );
  }

  private async refreshViews(): Promise<void> {
    try {
      this.views = await this.store.list();
    } catch {
      this.views = [];
    }
    this.controls.setSavedViews(this.views);
  }

  private async saveView(name: string): Promise<void> {
    const view = await this.store.save(name, this.rig.movePose(this.host.viewport.camera));
    await this.refreshViews();
    this.setActive(view.name);
    this.host.announce(`View saved: ${view.name}.`);
  }

  private goToView(id: string): void {
    const view = this.views.find((v) => v.id === id);
    if (!view) return;
    this.rig.setPose(view.pose);
    this.setActive(view.name);
    this.host.announce(`View: ${view.name}.`);
  }

  private async removeView(id: string): Promise<void> {
    const view = this.views.find((v) => v.id === id);
    try {
      await this.store.remove(id);
    } catch {
      // The server did not answer: the view is still there (the list says so), and the user hears why.
      this.host.announce(view ? `The view ${view.name} could not be deleted. Try again.` : 'The view could not be deleted. Try again.');
      await this.refreshViews();
      return;
    }
    await this.refreshViews();
    if (view) this.host.announce(`View deleted: ${view.name}.`);
  }
}

/** Position, heading, tilt, roll and focal length, rounded below what anyone could see. */
function framingKey(rig: CameraRig): string {
  const p = rig.position;
  return [p.x, p.y, p.z, rig.yaw, rig.pitch, rig.roll, rig.focalLengthMm].map((v) => v.toFixed(4)).join();
}
