import { formatSeconds } from '../../ui/format';
import type { CameraMove, MovePose } from '../../model/camera-move';
import type { CameraPathKeyframe, KeyframeEasing } from '../../model/camera-path';
import { MAX_DURATION_MS, MAX_KEYFRAMES } from '../../model/camera-path-file';
import { copyKeyframe, keyframeOf } from '../../model/camera-move-document';
import { moveFromKeyframes } from '../../model/keyframe-move';

export const DEFAULT_DURATION_MS = 10_000;
export const MIN_DURATION_MS = 100;
const DEFAULT_SMOOTHING = 0.5;
const DEFAULT_EASING: KeyframeEasing = 'ease-in-out';

export type TimelineEdit = { ok: true } | { ok: false; reason: string };

/** `window.__studio.state().perform.timeline`: what tests and the render read of the timeline. */
export interface TimelineState {
  keyframes: CameraPathKeyframe[];
  selected: number | null;
  smoothing: number;
  durationMs: number;
  playheadMs: number;
  playing: boolean;
  /** False while a take records: the move plays but does not change. */
  editable: boolean;
  savedMoves: { cameraPathId: string; name: string }[];
}

/**
 * The timeline's model, free of the DOM and of three.js: keyframes in ascending, distinct time,
 * the smoothing, the duration, a selected keyframe, and a playhead that plays by the frame
 * clock's `dt`. `revision` counts changes to the move itself (keyframes, smoothing, duration),
 * so views and the cached move know when to rebuild; selection and playhead do not count.
 */
export class Timeline {
  private keys: CameraPathKeyframe[] = [];
  private smoothingValue = DEFAULT_SMOOTHING;
  private duration = DEFAULT_DURATION_MS;
  private playhead = 0;
  private selectedIndex: number | null = null;
  private isPlaying = false;
  private cached: { revision: number; move: CameraMove | null } | null = null;
  revision = 0;

  get keyframes(): readonly CameraPathKeyframe[] {
    return this.keys;
  }

  get smoothing(): number {
    return this.smoothingValue;
  }

  get durationMs(): number {
    return this.duration;
  }

  get playheadMs(): number {
    return this.playhead;
  }

  get selected(): number | null {
    return this.selectedIndex;
  }

  get playing(): boolean {
    return this.isPlaying;
  }

  /** The move the keyframes make; null without keyframes. */
  get move(): CameraMove | null {
    if (this.cached?.revision !== this.revision) {
      this.cached = {
        revision: this.revision,
        move: this.keys.length > 0 ? moveFromKeyframes(this.keys, this.smoothingValue, this.duration) : null,
      };
    }
    return this.cached.move;
  }

  /** Replaces everything (a loaded, imported or converted move); the playhead goes to 0. */
  load(keyframes: readonly CameraPathKeyframe[], smoothing: number, durationMs: number): void {
    this.keys = keyframes.slice(0, MAX_KEYFRAMES).map(copyKeyframe);
    this.smoothingValue = clamp(smoothing, 0, 1);
    const last = this.keys[this.keys.length - 1]?.t ?? 0;
    this.duration = clamp(Math.max(durationMs, last), MIN_DURATION_MS, MAX_DURATION_MS);
    this.playhead = 0;
    this.selectedIndex = null;
    this.isPlaying = false;
    this.changed();
  }

  clear(): void {
    this.load([], this.smoothingValue, this.duration);
  }

  /**
   * A keyframe of `pose` at the playhead (to the millisecond); one already there takes the pose
   * instead. Returns its index and whether it replaced one.
   */
  addAtPlayhead(pose: MovePose, easing: KeyframeEasing = DEFAULT_EASING): { index: number; replaced: boolean } | null {
    const t = Math.round(this.playhead);
    const existing = this.keys.findIndex((k) => Math.abs(k.t - t) < 0.5);
    if (existing !== -1) {
      this.keys[existing] = keyframeOf(this.keys[existing].t, pose, this.keys[existing].easing);
      this.selectedIndex = existing;
      this.changed();
      return { index: existing, replaced: true };
    }
    if (this.keys.length >= MAX_KEYFRAMES) return null;
    const at = this.insert(keyframeOf(t, pose, easing));
    this.selectedIndex = at;
    this.changed();
    return { index: at, replaced: false };
  }

  /** Keyframe `index` takes `pose`, keeping its time and easing. */
  update(index: number, pose: MovePose): boolean {
    const k = this.keys[index];
    if (!k) return false;
    this.keys[index] = keyframeOf(k.t, pose, k.easing);
    this.changed();
    return true;
  }

  remove(index: number): boolean {
    if (!this.keys[index]) return false;
    this.keys.splice(index, 1);
    if (this.selectedIndex !== null) {
      if (this.selectedIndex === index) this.selectedIndex = this.keys.length > 0 ? Math.min(index, this.keys.length - 1) : null;
      else if (this.selectedIndex > index) this.selectedIndex--;
    }
    this.changed();
    return true;
  }

  /** Moves keyframe `index` to `tMs` (to the millisecond), keeping the keyframes in order. */
  retime(index: number, tMs: number): TimelineEdit {
    const k = this.keys[index];
    if (!k) return { ok: false, reason: 'There is no such keyframe.' };
    if (!Number.isFinite(tMs) || tMs < 0 || tMs > this.duration) {
      return { ok: false, reason: `A keyframe's time is from 0 to ${seconds(this.duration)} (the move's duration).` };
    }
    const t = Math.round(tMs);
    if (this.keys.some((other, i) => i !== index && Math.abs(other.t - t) < 0.5)) {
      return { ok: false, reason: `Another keyframe is at ${seconds(t)}.` };
    }
    this.keys.splice(index, 1);
    const at = this.insert({ ...k, t });
    if (this.selectedIndex === index) this.selectedIndex = at;
    this.changed();
    return { ok: true };
  }

  setEasing(index: number, easing: KeyframeEasing): boolean {
    const k = this.keys[index];
    if (!k || k.easing === easing) return false;
    this.keys[index] = { ...k, easing };
    this.changed();
    return true;
  }

  setSmoothing(value: number): void {
    const next = clamp(value, 0, 1);
    if (next === this.smoothingValue) return;
    this.smoothingValue = next;
    this.changed();
  }

  /** Never shorter than the last keyframe's time; returns the duration set. */
  setDuration(ms: number): number {
    const last = this.keys[this.keys.length - 1]?.t ?? 0;
    const next = clamp(Math.round(Number.isFinite(ms) ? ms : this.duration), Math.max(MIN_DURATION_MS, Math.ceil(last)), MAX_DURATION_MS);
    if (next !== this.duration) {
      this.duration = next;
      this.playhead = Math.min(this.playhead, next);
      this.changed();
    }
    return next;
  }

  select(index: number | null): void {
    this.selectedIndex = index !== null && this.keys[index] ? index : null;
  }

  seek(tMs: number): void {
    this.playhead = clamp(Number.isFinite(tMs) ? tMs : 0, 0, this.duration);
  }

  /** The keyframe before (−1) or after (+1) the playhead, if any. */
  neighbour(direction: -1 | 1): number | null {
    const t = this.playhead;
    if (direction === 1) {
      const i = this.keys.findIndex((k) => k.t > t + 0.5);
      return i === -1 ? null : i;
    }
    for (let i = this.keys.length - 1; i >= 0; i--) if (this.keys[i].t < t - 0.5) return i;
    return null;
  }

  /** Starts playing from the playhead (from the start when it is at the end). */
  play(): boolean {
    if (this.keys.length === 0) return false;
    if (this.playhead >= this.duration) this.playhead = 0;
    this.isPlaying = true;
    return true;
  }

  pause(): void {
    this.isPlaying = false;
  }

  stop(): void {
    this.isPlaying = false;
    this.playhead = 0;
  }

  /** One frame of playback, `dt` seconds long; returns false once the end is reached. */
  advance(dt: number): boolean {
    if (!this.isPlaying) return false;
    this.playhead = Math.min(this.duration, this.playhead + Math.max(0, dt) * 1000);
    if (this.playhead >= this.duration) this.isPlaying = false;
    return this.isPlaying;
  }

  /** Puts a keyframe where its time keeps the list in order; returns its index. */
  private insert(keyframe: CameraPathKeyframe): number {
    const next = this.keys.findIndex((k) => k.t > keyframe.t);
    const at = next === -1 ? this.keys.length : next;
    this.keys.splice(at, 0, keyframe);
    return at;
  }

  private changed(): void {
    this.revision++;
  }
}

/** "1.50 s": how the timeline shows times. */
export function seconds(ms: number): string {
  return formatSeconds(ms, 2);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
