import { interpolatePose, movePoseOf, type MovePose } from '../../model/camera-move';
import type { CameraPathKeyframe, CameraPathSample } from '../../model/camera-path';
import { keyframeOf } from '../../model/camera-move-document';

/** How far the keyframed move may stray from the take, per quantity. */
export interface SimplifyTolerance {
  positionM: number;
  angleDeg: number;
  /** Relative: 0.02 is 2 % of the focal length. */
  focalRatio: number;
  /** Relative: 0.05 is 5 % of the focus distance. */
  focusRatio: number;
  rollDeg: number;
}

const TAKE_TOLERANCE: Omit<SimplifyTolerance, 'positionM'> = { angleDeg: 1, focalRatio: 0.02, focusRatio: 0.05, rollDeg: 1 };
/** A position tolerance of this share of the take's extent, and never finer than 2 cm. */
const POSITION_SHARE = 0.005;
const POSITION_FLOOR_M = 0.02;
/** A take becomes at most this many keyframes, so its list stays editable. */
export const TAKE_KEYFRAME_CAP = 60;

export interface SimplifiedTake {
  keyframes: CameraPathKeyframe[];
  /** The worst sample's distance from the keyframed move, in tolerances (≤ 1: within tolerance). */
  worstError: number;
  /** True when the cap stopped the simplification before every sample was within tolerance. */
  capped: boolean;
}

/** The default tolerance for a take: the position's scales with how far the take travelled. */
export function takeTolerance(samples: readonly CameraPathSample[]): SimplifyTolerance {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const s of samples) {
    for (let d = 0; d < 3; d++) {
      min[d] = Math.min(min[d], s.position[d]);
      max[d] = Math.max(max[d], s.position[d]);
    }
  }
  const extent = samples.length > 0 ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
  return { ...TAKE_TOLERANCE, positionM: Math.max(POSITION_FLOOR_M, extent * POSITION_SHARE) };
}

/**
 * Keyframes that replay a take's path within a tolerance (Ramer–Douglas–Peucker over position,
 * orientation and lens values, top-down): starting from the first and last sample, the segment
 * whose worst sample strays furthest from the straight move between its ends is split at that
 * sample, until every sample is within tolerance or there are `cap` keyframes. The keyframes are
 * linear and the move's smoothing 0, so the timeline plays exactly what was measured here.
 * Samples that repeat an earlier time are skipped (keyframe times are distinct).
 */
export function keyframesFromTake(
  samples: readonly CameraPathSample[],
  tolerance: SimplifyTolerance = takeTolerance(samples),
  cap = TAKE_KEYFRAME_CAP,
): SimplifiedTake {
  const points: CameraPathSample[] = [];
  for (const s of samples) if (points.length === 0 || s.t > points[points.length - 1].t) points.push(s);
  if (points.length === 0) return { keyframes: [], worstError: 0, capped: false };
  if (points.length === 1) return { keyframes: [toKeyframe(points[0])], worstError: 0, capped: false };

  const limit = Math.max(2, Math.floor(cap));
  const kept = new Set([0, points.length - 1]);
  const open: Segment[] = [worstOf(points, 0, points.length - 1, tolerance)];
  while (kept.size < limit) {
    let worst = -1;
    for (let i = 0; i < open.length; i++) if (worst === -1 || open[i].error > open[worst].error) worst = i;
    if (worst === -1 || open[worst].error <= 1) break;
    const [segment] = open.splice(worst, 1);
    kept.add(segment.at);
    open.push(worstOf(points, segment.from, segment.at, tolerance), worstOf(points, segment.at, segment.to, tolerance));
  }
  const worstError = open.reduce((m, s) => Math.max(m, s.error), 0);
  return {
    keyframes: [...kept].sort((a, b) => a - b).map((i) => toKeyframe(points[i])),
    worstError,
    capped: worstError > 1,
  };
}

interface Segment {
  from: number;
  to: number;
  /** The sample strayed furthest from, and by how much (in tolerances). */
  at: number;
  error: number;
}

function worstOf(points: readonly CameraPathSample[], from: number, to: number, tolerance: SimplifyTolerance): Segment {
  const a = movePoseOf(points[from]);
  const b = movePoseOf(points[to]);
  const span = points[to].t - points[from].t;
  let at = from;
  let error = 0;
  for (let i = from + 1; i < to; i++) {
    const e = deviation(points[i], interpolatePose(a, b, (points[i].t - points[from].t) / span), tolerance);
    if (e > error) {
      error = e;
      at = i;
    }
  }
  return { from, to, at, error };
}

/** How far a sample is from where the straight move puts the camera, in tolerances. */
export function deviation(sample: MovePose, move: MovePose, tolerance: SimplifyTolerance): number {
  const p = sample.position;
  const q = move.position;
  const position = Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) / tolerance.positionM;
  const angle = angleBetweenDeg(sample.quaternion, move.quaternion) / tolerance.angleDeg;
  const focal = Math.abs(sample.focalLengthMm - move.focalLengthMm) / (tolerance.focalRatio * sample.focalLengthMm);
  const focus = Math.abs(sample.focusDistanceM - move.focusDistanceM) / (tolerance.focusRatio * sample.focusDistanceM);
  const roll = Math.abs(sample.rollDeg - move.rollDeg) / tolerance.rollDeg;
  // An aperture is a stop: the wrong one is never within tolerance.
  const stop = sample.fNumber === move.fNumber ? 0 : 2;
  return Math.max(position, angle, focal, focus, roll, stop);
}

function angleBetweenDeg(a: readonly number[], b: readonly number[]): number {
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) / (Math.hypot(...a) * Math.hypot(...b));
  return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
}

function toKeyframe(s: CameraPathSample): CameraPathKeyframe {
  // A sample is a pose already: rounded once, not copied first.
  return keyframeOf(s.t, s, 'linear');
}
