import { Raycaster, Vector2 } from 'three';
import type { CameraPreset } from '../api/studio-api.types';
import { describeLensChange, type LensState } from '../model/lens-edit';
import { RenderWorkflow, type RenderSource, type SourceDescription } from '../render/render-workflow';
import { StillWorkflow, type StillState } from '../render/still-workflow';
import { prepareTakeRemux, seekableTake } from '../render/take-remux';
import { moveFromPath } from '../model/camera-move';
import { frameOfPath } from '../model/lens';
import { formatSeconds } from '../ui/format';
import type { StudioViewport } from '../viewport/studio-viewport';
import { FramingWorkflow, type FramingState } from './framing-workflow';
import { GamepadInput, type GamepadStatus } from './gamepad.input';
import type { PerformActions } from './perform-actions';
import { PerformPanel, type TakeLinks } from './perform-panel.view';
import type { CameraPathStore } from '../model/camera-path-store';
import type { SavedViewStore } from './saved-views';
import { SpaceMouseInput, type SpaceMouseStatus } from './space-mouse.input';
import { TakeRecorder, type Take } from './take.recorder';
import type { TimelineState } from './timeline/timeline';
import { TimelineWorkflow } from './timeline/timeline-workflow';
import { UndoRedo, type UndoRedoState } from './undo-redo';
import { ViewportToolbar } from './viewport-toolbar.view';
import { ViewportControls } from './viewport.controls';

export interface PerformHost {
  viewport: StudioViewport;
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
  onRecordingChange(recording: boolean, elapsedMs: number): void;
  /** Where "save this view" keeps views; the page's memory when not given. */
  savedViews?: SavedViewStore;
  /** Where the timeline saves camera moves per scene. */
  cameraPaths: CameraPathStore;
}

export interface PerformState {
  navigation: 'orbit' | 'fly';
  recording: boolean;
  takes: number;
  markers: number;
  depthOfField: boolean;
  gamepad: GamepadStatus;
  spaceMouse: SpaceMouseStatus;
  lastTake: { durationMs: number; mimeType: string; sizeBytes: number; pathSamples: number; markers: number } | null;
  framing: FramingState;
  timeline: TimelineState;
  render: RenderWorkflow['state'];
  still: StillState;
  history: UndoRedoState;
}

/** How long a finished take may take to be made seekable before the original is handed over. */
const REMUX_BUDGET_MS = { running: 60_000, sessionEnd: 4_000 } as const;

/**
 * The perform workflow: wires every input device to the camera rig, and runs recordings.
 * Recording holds the viewport in continuous rendering so the captured stream gets a frame on
 * every animation frame, and samples the camera path on each of those frames.
 */
export class PerformWorkflow implements PerformActions {
  readonly panel: PerformPanel;
  readonly framing: FramingWorkflow;
  /** Camera moves authored on a timeline (the panel's "Camera move" section). */
  readonly timeline: TimelineWorkflow;
  /** Record and focal length over the viewport (the page places it in the viewport area). */
  readonly toolbar: ViewportToolbar;
  /** Offline renders of a camera move (the newest take's, until the timeline supplies one). */
  readonly render: RenderWorkflow;
  /** Stills of the current view (the Render section's "Take still"). */
  readonly still: StillWorkflow;
  /** Undo and redo of timeline edits and lens changes. */
  readonly undoRedo: UndoRedo;
  private readonly controls: ViewportControls;
  private readonly gamepad: GamepadInput;
  private readonly spaceMouse: SpaceMouseInput;
  private readonly recorder = new TakeRecorder();
  private readonly takes: TakeLinks[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private releaseRendering: (() => void) | null = null;
  private presets: readonly CameraPreset[] = [];
  private presetIndex = 0;
  private stopping: Promise<void> | null = null;
  private lastSecond = -1;
  private dofEnabled = false;
  private ended = false;

  constructor(private readonly host: PerformHost) {
    const { viewport } = host;
    const rig = viewport.rig;
    this.framing = new FramingWorkflow(host, (unit) => (this.panel.distanceUnit = unit));
    const cinema = this.framing.controls;
    this.undoRedo = new UndoRedo({
      announce: (text) => host.announce(text),
      apply: (state) => (state.kind === 'timeline' ? this.timeline.restore(state.timeline) : this.applyLens(state.lens)),
      blockedBy: () => this.busyReason('Undo and redo wait'),
    });
    this.timeline = new TimelineWorkflow({
      viewport,
      post: (type, payload) => host.post(type, payload),
      announce: (text) => host.announce(text),
      cameraPaths: host.cameraPaths,
      history: {
        record: (label, before, after, mergeKey) =>
          this.undoRedo.record(label, { kind: 'timeline', timeline: before }, { kind: 'timeline', timeline: after }, mergeKey),
        clear: () => this.undoRedo.clear(),
      },
    });
    this.render = new RenderWorkflow({
      viewport,
      post: (type, payload) => host.post(type, payload),
      announce: (text) => host.announce(text),
      onRenderingChange: (rendering) => {
        this.panel.setRecordBlocked(rendering);
        this.syncLocks();
      },
    });
    this.still = new StillWorkflow({
      viewport,
      post: (type, payload) => host.post(type, payload),
      announce: (text) => host.announce(text),
      blockedBy: () => this.busyReason('A still waits'),
      onCapturingChange: (capturing) => this.panel.setRecordBlocked(capturing || this.render.rendering),
    });
    this.render.setSources([
      {
        id: 'timeline',
        name: 'Timeline (camera move)',
        empty: 'The timeline has no keyframes yet.',
        describe: () => this.describeTimeline(),
        read: () => this.timeline.currentMove(),
        revision: () => this.timeline.revision,
      },
      {
        id: 'take',
        name: 'Newest take',
        empty: 'No take yet: record one to render its camera move.',
        describe: () => this.describeNewestTake(),
        read: () => this.newestTakeSource(),
        revision: () => this.takes.length,
      },
    ]);
    this.panel = new PerformPanel(
      rig,
      {
        setNavigation: (mode) => rig.setNavigation(mode),
        goToPreset: (index) => this.goToPreset(index),
        setDepthOfField: (enabled) => this.setDepthOfField(enabled),
        toggleRecording: () => this.toggleRecording(),
        dropMarker: () => this.dropMarker(),
        connectSpaceMouse: () => this.spaceMouse.connect(),
      },
      TakeRecorder.supported,
      {
        camera: [cinema.viewFields],
        lens: [cinema.primes, cinema.frameFields],
        focus: [cinema.focusFields],
        framing: [cinema.guideFields],
        move: [this.undoRedo.element, this.timeline.element],
        render: [...this.render.panel.elements, ...this.still.panel.elements],
      },
    );
    this.toolbar = new ViewportToolbar(this.panel.recordRow, cinema.focalEntry);
    const lensSection = this.panel.element.querySelector<HTMLElement>('[aria-labelledby="section-lens"]');
    this.watchLensEdits([lensSection, cinema.focalEntry]);

    this.controls = new ViewportControls(viewport.canvas, rig, this, (x, y) => this.pick(x, y));
    this.gamepad = new GamepadInput(rig, this, (status) => {
      this.panel.setGamepad(status);
      host.announce(status.connected ? `Gamepad connected: ${status.id}` : 'Gamepad disconnected.');
    });
    this.spaceMouse = new SpaceMouseInput(rig, this, (status) => this.panel.setSpaceMouse(status));
    void this.spaceMouse.reconnectGranted();

    this.unsubscribe.push(
      viewport.addFrameListener((dt) => {
        this.controls.update(dt);
        this.gamepad.poll(dt);
        this.spaceMouse.poll(dt);
        this.panel.sync();
        this.framing.onFrame();
        this.toolbar.setQuality(viewport.qualityState);
        if (this.recorder.recording) this.tickTimer();
        // After every input moved the rig: a hand on the camera stops a playing move.
        this.timeline.onFrame(dt);
        // A gamepad and a 3D mouse are polled: the frame loop must not rest while one is there.
        return this.gamepad.current.connected || this.spaceMouse.status.connected;
      }),
      viewport.addRenderListener((now) => {
        if (this.recorder.recording) this.recorder.sample(now, rig.pose(viewport.camera));
        this.timeline.onRender();
      }),
    );
  }

  get state(): PerformState {
    const last = this.takes[0]?.take ?? null;
    return {
      navigation: this.host.viewport.rig.navigation,
      recording: this.recorder.recording,
      takes: this.takes.length,
      markers: this.recorder.markerCount,
      depthOfField: this.host.viewport.depthOfFieldActive,
      gamepad: this.gamepad.current,
      spaceMouse: this.spaceMouse.status,
      lastTake: last
        ? {
            durationMs: last.durationMs,
            mimeType: last.mimeType,
            sizeBytes: last.video.size,
            pathSamples: last.path.samples.length,
            markers: last.path.markers.length,
          }
        : null,
      framing: this.framing.state,
      timeline: this.timeline.state,
      render: this.render.state,
      still: this.still.state,
      history: this.undoRedo.state,
    };
  }

  /** Finished takes, newest first: they outlive the session on the ended screen. */
  get finishedTakes(): readonly TakeLinks[] {
    return this.takes;
  }

  setPresets(presets: readonly CameraPreset[]): void {
    this.presets = presets;
    this.panel.setPresets(presets);
  }

  goToPreset(index?: number): void {
    if (this.presets.length === 0 || this.render.rendering) return;
    const next = index === undefined ? (this.presetIndex + 1) % this.presets.length : index;
    const preset = this.presets[next];
    if (!preset) return;
    this.presetIndex = next;
    this.host.viewport.rig.setFromPreset(preset);
    this.framing.presetApplied(preset.name);
    this.host.announce(`Camera preset: ${preset.name}.`);
  }

  toggleNavigation(): void {
    if (this.render.rendering) return;
    const rig = this.host.viewport.rig;
    rig.setNavigation(rig.navigation === 'orbit' ? 'fly' : 'orbit');
    this.host.announce(rig.navigation === 'orbit' ? 'Orbit navigation.' : 'Fly navigation.');
  }

  toggleRecording(): void {
    if (this.ended || this.stopping) return;
    if (this.render.rendering) {
      this.host.announce('A render is running: cancel it or let it finish to record.');
      return;
    }
    if (this.still.busy) {
      this.host.announce('A still is being taken: record when it is done.');
      return;
    }
    if (this.recorder.recording) void this.stopRecording();
    else this.startRecording();
  }

  dropMarker(): void {
    const label = this.recorder.marker();
    if (label) this.host.announce(`${label} dropped.`);
  }

  /**
   * The session ended: finish a running take and hand it to the parent like any other
   * (`recording.completed`, before the lifecycle posts `session.ended`), then go quiet.
   */
  async end(): Promise<readonly TakeLinks[]> {
    this.ended = true;
    // A render is cancelled, not finished: docs/embed.md, "Rendering a camera move".
    const rendering = this.render.end();
    this.still.end();
    if (this.recorder.recording) await this.stopRecording();
    else if (this.stopping) await this.stopping;
    await rendering;
    this.dispose();
    return this.takes;
  }

  dispose(): void {
    this.unsubscribe.splice(0).forEach((fn) => fn());
    this.controls.dispose();
    this.timeline.dispose();
    this.undoRedo.dispose();
    void this.spaceMouse.disconnect();
    this.releaseRendering?.();
    this.releaseRendering = null;
  }

  /** Frees the recordings' memory when the page goes away. */
  revokeDownloads(): void {
    for (const t of this.takes) {
      URL.revokeObjectURL(t.videoUrl);
      URL.revokeObjectURL(t.pathUrl);
    }
    this.render.revokeDownloads();
    this.still.revokeDownloads();
  }

  private startRecording(): void {
    const viewport = this.host.viewport;
    if (!viewport.hasScene) {
      this.host.announce('There is nothing to record until the scene has loaded.');
      return;
    }
    try {
      this.releaseRendering = viewport.holdContinuousRendering();
      this.recorder.start(viewport.canvas, viewport.loadedVersion, viewport.rig.frame);
    } catch (e) {
      this.releaseRendering?.();
      this.releaseRendering = null;
      const message = e instanceof Error ? e.message : 'Recording could not start.';
      this.host.post('error', { code: 'recording_failed', message });
      this.host.announce(message);
      return;
    }
    prepareTakeRemux();
    this.lastSecond = -1;
    this.render.setRecording(true);
    this.syncLocks();
    this.panel.setRecording(true, 0);
    this.host.onRecordingChange(true, 0);
    this.host.post('recording.started', { durationMs: 0, mimeType: this.recorder.currentMimeType, sizeBytes: 0 });
    this.host.announce('Recording started.');
  }

  private stopRecording(notifyParent = true): Promise<void> {
    const run = async () => {
      let take: Take | null = null;
      try {
        take = await this.recorder.stop();
      } catch {
        this.host.post('error', { code: 'recording_failed', message: 'The recording could not be finished.' });
      }
      this.releaseRendering?.();
      this.releaseRendering = null;
      if (take) {
        // Duration and Cues in the file, so players show its length and seek (the original if not).
        const video = await seekableTake(take.video, this.ended ? REMUX_BUDGET_MS.sessionEnd : REMUX_BUDGET_MS.running);
        take = { ...take, video };
      }
      this.render.setRecording(false);
      this.syncLocks();
      this.panel.setRecording(false, take?.durationMs ?? 0);
      this.host.onRecordingChange(false, 0);
      if (!take) return;
      const links: TakeLinks = { take, videoUrl: URL.createObjectURL(take.video), pathUrl: URL.createObjectURL(take.pathJson) };
      this.takes.unshift(links);
      this.panel.addTake(links);
      this.timeline.setLastTake(take);
      if (notifyParent) {
        // The partner's sandbox (per the product's iframe rules) has no allow-downloads, so the
        // take itself goes to the parent — posted only to the session's exact origin.
        this.host.post('recording.completed', {
          durationMs: take.durationMs,
          mimeType: take.mimeType,
          sizeBytes: take.video.size,
          video: take.video,
          cameraPath: take.path,
        });
        this.host.announce(`Recording finished: take ${take.index}, ready to download.`);
      }
    };
    this.stopping = run().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  /** The frame (sensor, aspect) and the timeline's keyframes hold still while a take records or a render runs. */
  private syncLocks(): void {
    const locked = this.recorder.recording || this.render.rendering;
    this.framing.setRecording(locked);
    this.timeline.setRecording(locked);
  }

  /** Why the view or the move may not change now, as "<what> until …", or null. */
  private busyReason(what: string): string | null {
    if (this.recorder.recording) return `${what} until the take is stopped.`;
    if (this.render.rendering) return `${what} until the render ends.`;
    if (this.still.busy) return `${what} until the still is taken.`;
    return null;
  }

  private lensState(): LensState {
    const rig = this.host.viewport.rig;
    return {
      focalLengthMm: rig.focalLengthMm,
      focusDistanceM: rig.focusDistanceM,
      fNumber: rig.fNumber,
      sensor: rig.frame.sensor.id,
      aspect: rig.frame.aspect.id,
    };
  }

  /** Undo and redo put the lens back; the frame only when it differs (it re-lays the view out). */
  private applyLens(lens: LensState): boolean {
    const rig = this.host.viewport.rig;
    if (rig.frame.sensor.id !== lens.sensor || rig.frame.aspect.id !== lens.aspect) rig.setFrame(lens.sensor, lens.aspect);
    rig.setFocalLength(lens.focalLengthMm);
    rig.setFocusDistance(lens.focusDistanceM);
    rig.setFNumber(lens.fNumber);
    return true;
  }

  /**
   * Lens changes made with the lens controls are remembered for undo: each event on them reads
   * the lens before (capture phase, ahead of the control's own handler) and after (bubble
   * phase, once it ran). Zoom keys, presets and a playing move change the lens too, but are not
   * lens edits and stay out of the history.
   */
  private watchLensEdits(elements: readonly (HTMLElement | null)[]): void {
    let before: LensState | null = null;
    for (const element of elements) {
      if (!element) continue;
      for (const type of ['input', 'change', 'click', 'keydown'] as const) {
        element.addEventListener(type, () => (before = this.lensState()), { capture: true });
        element.addEventListener(type, () => {
          if (!before) return;
          const was = before;
          before = null;
          const now = this.lensState();
          const change = describeLensChange(was, now);
          if (change) this.undoRedo.record(change.label, { kind: 'lens', lens: was }, { kind: 'lens', lens: now }, change.mergeKey);
        });
      }
    }
  }

  private describeNewestTake(): SourceDescription | null {
    const take = this.takes[0]?.take;
    // A take stopped before its first frame has no path: no move to render.
    if (!take || take.path.samples.length === 0) return null;
    return { label: `Take ${take.index} · ${formatSeconds(take.durationMs, 1)}`, frame: frameOfPath(take.path) };
  }

  private newestTakeSource(): RenderSource | null {
    const take = this.takes[0]?.take;
    return take ? { move: moveFromPath(take.path), cameraPath: take.path } : null;
  }

  private describeTimeline(): SourceDescription | null {
    const move = this.timeline.move;
    if (!move) return null;
    const n = this.timeline.keyframeCount;
    return { label: `${n} keyframe${n === 1 ? '' : 's'} · ${formatSeconds(move.durationMs, 1)}`, frame: null };
  }

  private tickTimer(): void {
    const elapsed = this.recorder.elapsedMs;
    const second = Math.floor(elapsed / 1000);
    if (second === this.lastSecond) return;
    this.lastSecond = second;
    this.panel.setElapsed(elapsed);
    this.host.onRecordingChange(true, elapsed);
  }

  private async setDepthOfField(enabled: boolean): Promise<boolean> {
    this.dofEnabled = enabled;
    const ok = await this.host.viewport.setDepthOfField(enabled);
    if (enabled) this.host.announce(ok ? 'Depth of field on.' : 'Depth of field is not available here.');
    return ok && this.dofEnabled === enabled;
  }

  private pick(ndcX: number, ndcY: number): number | null {
    const viewport = this.host.viewport;
    const raycaster = new Raycaster();
    raycaster.setFromCamera(new Vector2(ndcX, ndcY), viewport.camera);
    const model = viewport.scene.getObjectByName('studio-model');
    if (!model) return null;
    const hit = raycaster.intersectObject(model, true)[0];
    return hit ? hit.distance : null;
  }
}
