/**
 * Adaptive render quality: while the camera moves, frame times are measured and the pixel ratio
 * is lowered step by step when frames are slower than the target, so the camera keeps up with
 * the hand on a slow GPU (or a software renderer); once the camera rests, the next frame is
 * drawn at full quality again. A pinned controller (a take or an offline render is running, or
 * someone asked) never lowers it: a recording must not change resolution mid-way.
 *
 * Free of the DOM and of three.js so it can be tested with made-up clocks.
 */
export interface AdaptiveQualityOptions {
  /** The best pixel ratio (the device's, capped). */
  maxRatio: number;
  /** Never below this: under about half resolution the image stops being useful for framing. */
  minRatio?: number;
  /** Frames slower than this (while moving) lower the ratio. */
  targetFps?: number;
  /** The camera counts as resting after this long without a change. */
  idleMs?: number;
  /** Off: the ratio stays at maxRatio (the fps are still measured). */
  enabled?: boolean;
}

export const QUALITY_DEFAULTS = { minRatio: 0.5, targetFps: 30, idleMs: 300 } as const;

/** Frames averaged before each decision, so one hiccup does not change the resolution. */
const WINDOW = 4;
/** Each step down multiplies the ratio by this; a step up (fast frames) divides by UP_STEP. */
const DOWN_STEP = 0.75;
const UP_STEP = 0.85;
/** Frame intervals longer than this are pauses (a hidden tab), not slow frames. */
const PAUSE_MS = 1000;

export class AdaptiveQuality {
  readonly maxRatio: number;
  readonly minRatio: number;
  readonly targetFps: number;
  readonly idleMs: number;
  readonly enabled: boolean;
  private current: number;
  private pins = 0;
  private samples: number[] = [];
  private lastFrameAt: number | null = null;
  private lastMoveAt = Number.NEGATIVE_INFINITY;
  private readonly recent: number[] = [];

  constructor(options: AdaptiveQualityOptions) {
    this.maxRatio = options.maxRatio;
    this.minRatio = Math.min(options.minRatio ?? QUALITY_DEFAULTS.minRatio, options.maxRatio);
    this.targetFps = options.targetFps ?? QUALITY_DEFAULTS.targetFps;
    this.idleMs = options.idleMs ?? QUALITY_DEFAULTS.idleMs;
    this.enabled = options.enabled ?? true;
    this.current = this.maxRatio;
  }

  get ratio(): number {
    return this.current;
  }

  /** Below full quality: restoreWhenIdle will raise it once the camera has rested long enough. */
  get restorePending(): boolean {
    return this.current < this.maxRatio;
  }

  get pinned(): boolean {
    return this.pins > 0;
  }

  /** The drawing rate over the last frames drawn back to back, or null before there were two. */
  get fps(): number | null {
    if (this.recent.length === 0) return null;
    return Math.round(1000 / (this.recent.reduce((a, b) => a + b, 0) / this.recent.length));
  }

  /** Holds full quality until the returned function is called (takes, offline renders, tests). */
  pin(): () => void {
    this.pins++;
    this.current = this.maxRatio;
    this.samples = [];
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pins--;
    };
  }

  /**
   * A frame was drawn at `now` (ms); `moving` when the camera changed since the last one.
   * Returns the pixel ratio the next frame should use.
   */
  frameDrawn(now: number, moving: boolean): number {
    const interval = this.lastFrameAt === null ? null : now - this.lastFrameAt;
    this.lastFrameAt = now;
    if (interval !== null && interval > 0 && interval < PAUSE_MS) {
      this.recent.push(interval);
      if (this.recent.length > 10) this.recent.shift();
    }
    if (moving) this.lastMoveAt = now;
    if (!this.enabled || this.pinned) return (this.current = this.maxRatio);
    if (!moving || interval === null || interval >= PAUSE_MS) {
      this.samples = [];
      return this.current;
    }
    this.samples.push(interval);
    if (this.samples.length < WINDOW) return this.current;
    const mean = this.samples.reduce((a, b) => a + b, 0) / this.samples.length;
    this.samples = [];
    const budget = 1000 / this.targetFps;
    if (mean > budget * 1.15 && this.current > this.minRatio) this.current = Math.max(this.minRatio, this.current * DOWN_STEP);
    else if (mean < budget * 0.6 && this.current < this.maxRatio) this.current = Math.min(this.maxRatio, this.current / UP_STEP);
    return this.current;
  }

  /**
   * Called every animation frame, drawn or not: true when the camera has rested long enough at a
   * lowered ratio that full quality should be restored (the caller then draws one frame).
   */
  restoreWhenIdle(now: number): boolean {
    if (this.current >= this.maxRatio || now - this.lastMoveAt < this.idleMs) return false;
    this.current = this.maxRatio;
    this.samples = [];
    return true;
  }
}

/**
 * Seconds since the last animation frame, for input integration. Long gaps (a hidden tab, a
 * breakpoint) are cut to `maxSeconds` so the camera does not jump, but the cut is well below any
 * real frame rate's interval: a software renderer at 4 fps still moves at full speed.
 */
export function frameDelta(now: number, last: number, maxSeconds = 0.25): number {
  if (last === 0 || now <= last) return 0;
  return Math.min(maxSeconds, (now - last) / 1000);
}

/** The localStorage key of the studio origin that overrides the adaptive quality (docs/performance.md). */
export const QUALITY_OVERRIDE_KEY = 'scene-studio.quality';

/**
 * Reads `{"targetFps": n, "enabled": bool, "minRatio": r}` stored under QUALITY_OVERRIDE_KEY:
 * benchmarks turn adaptation off, tests raise the target to force it on any machine. Only the
 * studio origin's own storage can hold it (a partner page cannot write it); anything malformed
 * is ignored.
 */
export function qualityOverrides(raw: string | null): Partial<AdaptiveQualityOptions> {
  if (!raw) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const out: Partial<AdaptiveQualityOptions> = {};
  if (typeof v.targetFps === 'number' && v.targetFps >= 1 && v.targetFps <= 1000) out.targetFps = v.targetFps;
  if (typeof v.enabled === 'boolean') out.enabled = v.enabled;
  if (typeof v.minRatio === 'number' && v.minRatio >= 0.25 && v.minRatio <= 2) out.minRatio = v.minRatio;
  return out;
}
