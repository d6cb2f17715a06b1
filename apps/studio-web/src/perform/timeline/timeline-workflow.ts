import { h, isTypingTarget, isFramed } from '../../ui/dom';
import type { CameraMove } from '../../model/camera-move';
import { frameOfPath } from '../../model/lens';
import type { StudioViewport } from '../../viewport/studio-viewport';
import type { CameraPathDocument, CameraPathKeyframe, KeyframeEasing } from '../../model/camera-path';
import type { CameraPathStore, CameraPathSummary, SavedCameraPath } from '../../model/camera-path-store';
import type { Take } from '../take.recorder';
import { MAX_FILE_BYTES, MAX_KEYFRAMES, parseCameraPathFile } from '../../model/camera-path-file';
import { copyKeyframe, documentForMove } from '../../model/camera-move-document';
import { StudioApiError } from '../../api/studio-api.client';
import { confirmInPage, type ConfirmOptions } from '../../ui/confirm-dialog.view';
import { MoveLibrary } from './move-library.view';
import { keyframesFromTake, TAKE_KEYFRAME_CAP } from './take-keyframes';
import { Timeline, seconds, type TimelineState } from './timeline';
import { EASING_LABELS, TimelinePanel } from './timeline-panel.view';

export interface TimelineHost {
  viewport: StudioViewport;
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
  /** Where moves are saved per scene. */
  cameraPaths: CameraPathStore;
  /** Where edits are remembered for undo (perform/undo-redo.ts); none, no undo. */
  history?: TimelineHistory;
  /** Asks before unsaved keyframes are replaced; an in-page dialog unless given. */
  confirm?: (options: ConfirmOptions) => Promise<boolean>;
}

/** The move as undo restores it: keyframes, smoothing, duration and the selection. */
export interface TimelineSnapshot {
  keyframes: CameraPathKeyframe[];
  smoothing: number;
  durationMs: number;
  selected: number | null;
}

export interface TimelineHistory {
  record(label: string, before: TimelineSnapshot, after: TimelineSnapshot, mergeKey: string | null): void;
  /** Another move was loaded: what came before cannot be undone into it. */
  clear(): void;
}

/** A camera move ready for the offline render: the move itself and its file. */
export interface CurrentMove {
  move: CameraMove;
  cameraPath: CameraPathDocument;
}

/**
 * Camera moves you can author: the timeline's keyframes, played back by the viewport's frame
 * clock, scrubbed, saved per scene, imported and exported. The perform workflow builds it,
 * places its element in the panel's "Camera move" section, and calls `onFrame` after the inputs
 * moved the rig (so a hand on the camera stops playback) and `onRender` after each frame.
 * While a take records the move can play (recording a played move is a way to make a take) but
 * not change.
 */
export class TimelineWorkflow {
  readonly element: HTMLElement;
  private readonly timeline = new Timeline();
  private readonly panel: TimelinePanel;
  private readonly library: MoveLibrary;
  private readonly abort = new AbortController();
  private saved: CameraPathSummary[] = [];
  private lastTake: Take | null = null;
  private recording = false;
  private releaseRendering: (() => void) | null = null;
  /** The rig's revision after the move last placed it: anything else means a hand moved it. */
  private placedRevision = -1;
  private savedAt: string | null = null;
  private name: string | null = null;
  private downloadUrl: string | null = null;
  /** The timeline's revision when its move was last saved or loaded: anything else is unsaved. */
  private savedRevision = 0;
  /** What the running edit did, in words (said and remembered for undo). */
  private editLabel: string | null = null;

  constructor(
    private readonly host: TimelineHost,
    private readonly framed = isFramed(),
  ) {
    this.panel = new TimelinePanel({
      togglePlay: () => this.togglePlay(),
      stop: () => this.stop(),
      seek: (ms) => this.seek(ms),
      addKeyframe: () => this.addKeyframe(),
      goToKeyframe: (index) => this.goToKeyframe(index),
      updateSelected: () => this.updateSelected(),
      removeSelected: () => this.removeSelected(),
      retimeSelected: (ms) => this.retimeSelected(ms),
      setEasing: (easing) => this.setEasing(easing),
      setSmoothing: (value) =>
        this.edit(
          () => {
            this.timeline.setSmoothing(value);
            this.editLabel = `Smoothing ${Math.round(this.timeline.smoothing * 100)} %`;
          },
          false,
          'smoothing',
        ),
      setDuration: (ms) => this.setDuration(ms),
      editLastTake: () => this.editLastTake(),
      clear: () => this.clear(),
    });
    this.library = new MoveLibrary(
      {
        announce: (text) => host.announce(text),
        save: (name) => this.save(name),
        load: (id) => this.load(id),
        remove: (id) => this.remove(id),
        importFile: (file) => this.importFile(file),
        export: () => this.export(),
      },
      framed,
    );
    this.element = h('div', { className: 'camera-move' }, [this.panel.element, this.library.element]);
    window.addEventListener('keydown', this.onKeyDown, { signal: this.abort.signal });
    this.sync();
    void this.refreshSaved();
  }

  /** Counts changes to the move itself (keyframes, smoothing, duration): the offline render watches it. */
  get revision(): number {
    return this.timeline.revision;
  }

  get state(): TimelineState {
    return {
      keyframes: this.timeline.keyframes.map(copyKeyframe),
      ...this.snapshot(),
      savedMoves: this.saved.map(({ cameraPathId, name }) => ({ cameraPathId, name })),
    };
  }

  /** The authored move (built once per change); null without keyframes. */
  get move(): CameraMove | null {
    return this.timeline.move;
  }

  get keyframeCount(): number {
    return this.timeline.keyframes.length;
  }

  /** The authored move and its file (samples baked at 30 fps, the rig's frame); null without keyframes. */
  currentMove(): CurrentMove | null {
    return this.moveAsSaved(this.savedAt ?? new Date().toISOString());
  }

  /** Keyframes added or changed since the move was last saved or loaded. */
  get unsaved(): boolean {
    return this.timeline.keyframes.length > 0 && this.timeline.revision !== this.savedRevision;
  }

  /** The move as undo remembers it. */
  undoState(): TimelineSnapshot {
    const t = this.timeline;
    return { keyframes: t.keyframes.map(copyKeyframe), smoothing: t.smoothing, durationMs: t.durationMs, selected: t.selected };
  }

  /**
   * Puts a remembered move back (undo, redo), the playhead where it is; false while a take
   * records. The camera stays where it is: undo changes the move, not the view.
   */
  restore(snapshot: TimelineSnapshot): boolean {
    if (this.recording) {
      this.host.announce('The camera move cannot change while a take records.');
      return false;
    }
    this.pause();
    const playhead = this.timeline.playheadMs;
    this.timeline.load(snapshot.keyframes, snapshot.smoothing, snapshot.durationMs);
    this.timeline.select(snapshot.selected);
    this.timeline.seek(playhead);
    this.sync();
    return true;
  }

  /** Every frame, after the inputs had their turn: plays the move, and keeps the panel current. */
  onFrame(dt: number): void {
    const rig = this.host.viewport.rig;
    if (this.timeline.playing) {
      if (rig.revision !== this.placedRevision) {
        this.pause('Playback stopped: the camera was moved by hand.');
      } else if (this.timeline.advance(dt)) {
        this.place();
      } else {
        this.place();
        this.release();
        this.host.announce('The camera move has ended.');
      }
    }
    this.sync();
  }

  /** After each drawn frame: the ground check may have lifted the camera, which is not a hand. */
  onRender(): void {
    if (this.timeline.playing) this.placedRevision = this.host.viewport.rig.revision;
  }

  setRecording(recording: boolean): void {
    this.recording = recording;
    this.library.setEditable(!recording);
  }

  /** A take finished: its path is the one "Edit last take's path" turns into keyframes. */
  setLastTake(take: Take): void {
    this.lastTake = take;
  }

  dispose(): void {
    this.abort.abort();
    this.release();
    this.timeline.pause();
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = null;
  }

  // ---- playback -------------------------------------------------------------------------------

  private togglePlay(): void {
    if (this.timeline.playing) this.pause(`Paused at ${seconds(this.timeline.playheadMs)}.`);
    else this.play();
  }

  private play(): void {
    if (!this.timeline.play()) {
      this.host.announce('Add a keyframe to play a camera move.');
      return;
    }
    this.releaseRendering ??= this.host.viewport.holdContinuousRendering();
    this.place();
    this.host.announce(`Playing the camera move from ${seconds(this.timeline.playheadMs)}.`);
  }

  private pause(announcement: string | null = null): void {
    if (!this.timeline.playing) return;
    this.timeline.pause();
    this.release();
    this.sync();
    if (announcement) this.host.announce(announcement);
  }

  private stop(): void {
    this.pause();
    this.timeline.stop();
    this.place();
    this.host.announce('Stopped at the start of the move.');
  }

  private seek(ms: number): void {
    this.pause();
    this.timeline.seek(ms);
    this.place();
  }

  /** Puts the camera where the move is at the playhead. */
  private place(): void {
    const move = this.timeline.move;
    if (move) {
      const rig = this.host.viewport.rig;
      rig.setPose(move.poseAt(this.timeline.playheadMs));
      this.placedRevision = rig.revision;
    }
    this.sync();
  }

  private release(): void {
    this.releaseRendering?.();
    this.releaseRendering = null;
  }

  private goToKeyframe(index: number): void {
    const key = this.timeline.keyframes[index];
    if (!key) return;
    this.timeline.select(index);
    this.seek(key.t);
    this.host.announce(`Keyframe ${index + 1} at ${seconds(key.t)}.`);
  }

  private step(direction: -1 | 1): void {
    const index = this.timeline.neighbour(direction);
    if (index === null) this.host.announce(direction === 1 ? 'No keyframe after the playhead.' : 'No keyframe before the playhead.');
    else this.goToKeyframe(index);
  }

  // ---- editing --------------------------------------------------------------------------------

  /**
   * Runs an edit unless a take records (then says why not); edits pause playback first. An edit
   * that changed the move is remembered for undo under what it said (`said`); edits with the same
   * `mergeKey` in a quick run (a slider dragged) are one step.
   */
  private edit<T>(change: () => T, announceRefusal = true, mergeKey: string | null = null): T | null {
    if (this.recording) {
      if (announceRefusal) this.host.announce('The camera move cannot change while a take records.');
      return null;
    }
    this.pause();
    const history = this.host.history;
    const before = history ? this.undoState() : null;
    const revision = this.timeline.revision;
    this.editLabel = null;
    const result = change();
    if (history && before && this.timeline.revision !== revision) {
      history.record(this.editLabel ?? 'Camera move changed', before, this.undoState(), mergeKey);
    }
    // The panel shows the change at once, not on the next frame (which a slow machine delays).
    this.sync();
    return result;
  }

  /** Says what an edit did, and keeps it as the edit's name for undo. */
  private said(text: string): void {
    this.editLabel = text;
    this.host.announce(text);
  }

  /**
   * Before another move replaces the timeline: asks when keyframes are unsaved (the history is
   * cleared by the load, so undo could not bring them back). True to go ahead.
   */
  private async confirmReplace(what: string): Promise<boolean> {
    if (!this.unsaved) return true;
    const n = this.timeline.keyframes.length;
    const confirm = this.host.confirm ?? confirmInPage;
    const ok = await confirm({
      title: 'Discard unsaved keyframes?',
      message: `The timeline's ${n} keyframe${n === 1 ? ' is' : 's are'} not saved. Loading ${what} replaces ${n === 1 ? 'it' : 'them'}, and undo cannot bring ${n === 1 ? 'it' : 'them'} back.`,
      confirm: 'Discard and load',
      cancel: 'Keep editing',
    });
    if (!ok) this.host.announce('The camera move was kept.');
    return ok;
  }

  /** Another move is on the timeline: it is the saved state, and the history starts again. */
  private loaded(): void {
    this.savedRevision = this.timeline.revision;
    this.host.history?.clear();
  }

  private addKeyframe(): void {
    this.edit(() => {
      const added = this.timeline.addAtPlayhead(this.host.viewport.rig.movePose(this.host.viewport.camera));
      if (!added) this.host.announce(`A camera move holds at most ${MAX_KEYFRAMES} keyframes.`);
      else if (added.replaced) this.said(`Keyframe ${added.index + 1} at ${seconds(this.timeline.playheadMs)} updated to the camera.`);
      else this.said(`Keyframe ${added.index + 1} added at ${seconds(this.timeline.playheadMs)}.`);
    });
  }

  private updateSelected(): void {
    this.edit(() => {
      const index = this.timeline.selected;
      if (index !== null && this.timeline.update(index, this.host.viewport.rig.movePose(this.host.viewport.camera))) {
        this.said(`Keyframe ${index + 1} updated to the camera.`);
      }
    });
  }

  private removeSelected(): void {
    this.edit(() => {
      const index = this.timeline.selected;
      if (index !== null && this.timeline.remove(index)) this.said(`Keyframe ${index + 1} deleted.`);
    });
  }

  private retimeSelected(ms: number): string | null {
    const result = this.edit(() => {
      const index = this.timeline.selected;
      if (index === null) return { ok: false as const, reason: 'Choose a keyframe first.' };
      const done = this.timeline.retime(index, ms);
      if (done.ok) this.said(`Keyframe moved to ${seconds(Math.round(ms))}.`);
      else this.host.announce(done.reason);
      return done;
    });
    if (!result) return 'The camera move cannot change while a take records.';
    return result.ok ? null : result.reason;
  }

  private setEasing(easing: KeyframeEasing): void {
    this.edit(() => {
      const index = this.timeline.selected;
      if (index !== null && this.timeline.setEasing(index, easing)) {
        this.said(`Keyframe ${index + 1}: ${EASING_LABELS[easing].toLowerCase()} to the next.`);
      }
    });
  }

  private setDuration(ms: number): void {
    this.edit(() => {
      const applied = this.timeline.setDuration(ms);
      const last = this.timeline.keyframes[this.timeline.keyframes.length - 1];
      if (applied > ms && last && applied <= Math.ceil(last.t)) {
        this.said(`The move lasts at least until its last keyframe: ${seconds(applied)}.`);
      } else {
        this.said(`The move lasts ${seconds(applied)}.`);
      }
    });
  }

  private clear(): void {
    this.edit(() => {
      this.timeline.clear();
      this.name = null;
      this.library.currentName = null;
      this.said('Every keyframe removed.');
    });
  }

  private editLastTake(): void {
    const take = this.lastTake;
    if (!take) {
      this.host.announce('Record a take first: its path becomes keyframes here.');
      return;
    }
    this.edit(() => {
      const simplified = keyframesFromTake(take.path.samples);
      if (simplified.keyframes.length === 0) {
        this.host.announce(`Take ${take.index} has no camera path to edit.`);
        return;
      }
      this.replaceMove(simplified.keyframes, 0, take.path.durationMs, null);
      const capped = simplified.capped ? `, at most ${TAKE_KEYFRAME_CAP}: the move strays a little more from the take than usual` : '';
      this.said(`Take ${take.index}'s path is on the timeline as ${simplified.keyframes.length} keyframes${capped}.`);
    });
  }

  /** Loads a move into the timeline, in the document's frame when the studio has it. */
  private loadDocument(doc: CameraPathDocument, name: string | null): number {
    if (doc.keyframes && doc.keyframes.length > 0) {
      this.replaceMove(doc.keyframes, doc.smoothing ?? 0, doc.durationMs, name);
    } else {
      this.replaceMove(keyframesFromTake(doc.samples).keyframes, 0, doc.durationMs, name);
    }
    const rig = this.host.viewport.rig;
    const frame = frameOfPath(doc);
    if (frame) rig.setFrame(frame.sensor.id, frame.aspect.id);
    return this.timeline.keyframes.length;
  }

  private replaceMove(keyframes: readonly CameraPathKeyframe[], smoothing: number, durationMs: number, name: string | null): void {
    this.timeline.load(keyframes, smoothing, durationMs);
    this.name = name;
    this.library.currentName = name;
    this.place();
  }

  // ---- store and files ------------------------------------------------------------------------

  private async refreshSaved(): Promise<void> {
    try {
      this.saved = await this.host.cameraPaths.list('path');
    } catch {
      this.saved = [];
    }
    this.library.setSaved(this.saved);
  }

  private async save(name: string): Promise<void> {
    // Saved, the keyframes are the move: the samples baked for files that leave the studio would
    // only spend the server's sample limit (docs/camera-paths.md).
    const current = this.moveAsSaved(new Date().toISOString(), false);
    if (!current) throw new Error('Add keyframes before saving a camera move.');
    const { cameraPath } = current;
    const existing = this.saved.find((s) => s.name === name);
    try {
      if (existing) await this.host.cameraPaths.update(existing.cameraPathId, name, cameraPath);
      else await this.host.cameraPaths.create('path', name, cameraPath);
    } catch (e) {
      // The list may be stale (another session deleted the move saved over): read it again, so
      // a retry creates rather than updates what is gone.
      await this.refreshSaved();
      // The server's own words when it refused the move (a limit); a retry for anything else.
      const refused = e instanceof StudioApiError && e.status === 422 ? ` ${e.message}` : ' Try again.';
      throw new Error(`The camera move could not be saved.${refused}`, { cause: e });
    }
    this.savedAt = cameraPath.recordedAt;
    this.name = name;
    this.savedRevision = this.timeline.revision;
    await this.refreshSaved();
    this.host.announce(existing ? `Camera move ${name} saved over the earlier one.` : `Camera move saved: ${name}.`);
  }

  private async load(cameraPathId: string): Promise<void> {
    if (this.recording) {
      this.host.announce('The camera move cannot change while a take records.');
      return;
    }
    const name = this.saved.find((s) => s.cameraPathId === cameraPathId)?.name;
    if (!(await this.confirmReplace(name ? `camera move ${name}` : 'that camera move'))) return;
    let saved: SavedCameraPath | null = null;
    try {
      saved = await this.host.cameraPaths.get(cameraPathId);
    } catch {
      // Below: said the same way as a move that is gone.
    }
    if (!saved) {
      await this.refreshSaved();
      throw new Error('That camera move could not be loaded: it may have been deleted.');
    }
    const count = this.edit(() => this.loadDocument(saved.document, saved.name));
    if (count === null) return;
    this.loaded();
    this.savedAt = saved.document.recordedAt;
    this.host.announce(`Camera move ${saved.name}: ${count} keyframes, ${seconds(this.timeline.durationMs)}.`);
  }

  private async remove(cameraPathId: string): Promise<void> {
    const path = this.saved.find((s) => s.cameraPathId === cameraPathId);
    try {
      await this.host.cameraPaths.remove(cameraPathId);
    } catch {
      throw new Error('The camera move could not be deleted. Try again.');
    }
    await this.refreshSaved();
    if (path) this.host.announce(`Camera move deleted: ${path.name}.`);
  }

  private async importFile(file: File): Promise<void> {
    if (this.recording) throw new Error('The camera move cannot change while a take records.');
    if (file.size > MAX_FILE_BYTES) throw new Error(`The file was refused: it is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB.`);
    const parsed = parseCameraPathFile(await file.text());
    if (!parsed.ok) throw new Error(`The file was refused: ${parsed.reason}`);
    if (!(await this.confirmReplace(file.name))) return;
    const count = this.edit(() => this.loadDocument(parsed.document, null));
    if (count === null) return;
    this.loaded();
    this.savedAt = null;
    const from = parsed.document.keyframes?.length ? '' : ' (made from its samples)';
    this.host.announce(`Imported ${file.name}: ${count} keyframes${from}, ${seconds(this.timeline.durationMs)}.`);
  }

  private export(): void {
    const current = this.currentMove();
    if (!current) {
      this.host.announce('Add keyframes before exporting a camera move.');
      return;
    }
    const fileName = `${slug(this.name ?? 'camera-move')}.camera-path.json`;
    // The partner's sandbox has no allow-downloads: framed, the file goes to the parent, posted
    // (like every event) only to the session's exact origin. Unframed, a link offers it here.
    this.host.post('camera-path.exported', { fileName, cameraPath: current.cameraPath });
    if (this.framed) {
      this.host.announce('Camera move handed to the page around the studio.');
      return;
    }
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = URL.createObjectURL(new Blob([JSON.stringify(current.cameraPath, null, 2)], { type: 'application/json' }));
    this.library.offerDownload(this.downloadUrl, fileName);
    this.host.announce(`Camera move ready to download: ${fileName}.`);
  }

  /**
   * The move and its file, stamped `recordedAt` (the format's "when an authored move was last
   * saved"); `baked: false` leaves out the samples.
   */
  private moveAsSaved(recordedAt: string, baked = true): CurrentMove | null {
    const move = this.timeline.move;
    if (!move) return null;
    const viewport = this.host.viewport;
    const cameraPath = documentForMove(
      { keyframes: this.timeline.keyframes, smoothing: this.timeline.smoothing, move },
      { frame: viewport.rig.frame, sceneVersion: viewport.loadedVersion, recordedAt },
      { baked },
    );
    return { move, cameraPath };
  }

  // ---- the rest -------------------------------------------------------------------------------

  /** What the debug hook's state and the panel both show. */
  private snapshot(): Omit<TimelineState, 'keyframes' | 'savedMoves'> {
    const t = this.timeline;
    return {
      selected: t.selected,
      smoothing: t.smoothing,
      durationMs: t.durationMs,
      playheadMs: t.playheadMs,
      playing: t.playing,
      editable: !this.recording,
    };
  }

  private sync(): void {
    const t = this.timeline;
    this.panel.sync({ ...this.snapshot(), revision: t.revision, keyframes: t.keyframes, lastTake: this.lastTake?.index ?? null });
    this.library.setHasMove(t.keyframes.length > 0);
  }

  /**
   * The timeline's keys, beside the perform keys (docs/embed.md): I adds a keyframe at the
   * playhead, L plays or pauses, comma and full stop go to the previous and next keyframe.
   * Read by physical position and ignored while typing, like the perform keys.
   */
  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
    switch (event.code) {
      case 'KeyI':
        this.addKeyframe();
        break;
      case 'KeyL':
        this.togglePlay();
        break;
      case 'Comma':
        this.step(-1);
        break;
      case 'Period':
        this.step(1);
        break;
      default:
        return;
    }
    event.preventDefault();
  };
}

/** A file name from a move's name: lower case, dashes for anything else, never empty. */
function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'camera-move'
  );
}
