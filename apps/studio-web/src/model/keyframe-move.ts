import { interpolatePose, movePoseOf, type CameraMove, type MovePose } from './camera-move';
import type { CameraPathKeyframe, KeyframeEasing } from './camera-path';

/** Below this a knot interval counts as a repeated point (three.js's CatmullRomCurve3 threshold). */
const REPEATED = 1e-4;

/**
 * How far through a segment the move is, for a local fraction `k` (0 to 1) and the easing of the
 * keyframe the segment leaves (docs/camera-paths.md, "How a move is evaluated").
 */
export function easeFraction(easing: KeyframeEasing, k: number): number {
  const x = Math.min(1, Math.max(0, k));
  switch (easing) {
    case 'linear':
      return x;
    case 'ease-in':
      return x * x;
    case 'ease-out':
      return 1 - (1 - x) * (1 - x);
    case 'ease-in-out':
      return x * x * (3 - 2 * x);
    case 'hold':
      // A cut: the pose stays until the next keyframe's time, which belongs to the next segment.
      return x < 1 ? 0 : 1;
  }
}

/**
 * The value at `u` (0 to 1) of the segment from `p1` to `p2` of a centripetal Catmull-Rom spline
 * through `p0 … p3`, for points of any dimension. Knot intervals are the square roots of the
 * distances between neighbours. A segment whose ends are the same point stays on it (a pan keeps
 * its position, a focus pull its focal length) instead of wobbling out and back; a repeated
 * neighbour takes the segment's interval (three.js's guard) so the curve stays finite. Written
 * as the Hermite form with non-uniform tangents, which equals the Barry–Goldman pyramid.
 */
export function centripetalCatmullRom(
  p0: readonly number[],
  p1: readonly number[],
  p2: readonly number[],
  p3: readonly number[],
  u: number,
): number[] {
  const dt1 = Math.sqrt(distance(p1, p2));
  if (dt1 < REPEATED) return [...p1];
  let dt0 = Math.sqrt(distance(p0, p1));
  let dt2 = Math.sqrt(distance(p2, p3));
  if (dt0 < REPEATED) dt0 = dt1;
  if (dt2 < REPEATED) dt2 = dt1;
  const u2 = u * u;
  const u3 = u2 * u;
  return p1.map((x1, d) => {
    const x0 = p0[d];
    const x2 = p2[d];
    const x3 = p3[d];
    // Tangents at p1 and p2 for the knot spacing, rescaled to the segment's [0, 1].
    const m1 = ((x1 - x0) / dt0 - (x2 - x0) / (dt0 + dt1) + (x2 - x1) / dt1) * dt1;
    const m2 = ((x2 - x1) / dt1 - (x3 - x1) / (dt1 + dt2) + (x3 - x2) / dt2) * dt1;
    const c2 = -3 * x1 + 3 * x2 - 2 * m1 - m2;
    const c3 = 2 * x1 - 2 * x2 + m1 + m2;
    return x1 + m1 * u + c2 * u2 + c3 * u3;
  });
}

/**
 * The move authored keyframes describe (docs/camera-paths.md): between keyframe i and i + 1 the
 * local fraction goes through keyframe i's easing; positions and the focal length, focus distance
 * and roll follow `lerp(straight line, centripetal Catmull-Rom, smoothing)` at that eased fraction
 * (each quantity its own curve: the position in 3D, each lens value on its own), orientations
 * slerp along the shorter arc, and the aperture switches when the eased fraction reaches one
 * half. Before the first keyframe the move holds the first pose, after the last the last.
 *
 * `keyframes` must be in ascending, distinct time (the file's rule; `parseCameraPathFile`
 * refuses anything else); `durationMs` defaults to the last keyframe's time.
 */
export function moveFromKeyframes(keyframes: readonly CameraPathKeyframe[], smoothing: number, durationMs?: number): CameraMove {
  if (keyframes.length === 0) throw new Error('A move needs at least one keyframe.');
  const keys = keyframes.map((k) => ({ ...k, quaternion: normalized(k.quaternion) }));
  for (let i = 1; i < keys.length; i++) {
    if (!(keys[i].t > keys[i - 1].t)) throw new Error('Keyframes must be in ascending, distinct time.');
  }
  const s = Math.min(1, Math.max(0, Number.isFinite(smoothing) ? smoothing : 0));
  const last = keys[keys.length - 1];
  const duration = Math.max(durationMs ?? last.t, last.t);
  return {
    durationMs: duration,
    poseAt(tMs: number): MovePose {
      const t = Math.min(Math.max(Number.isFinite(tMs) ? tMs : 0, 0), duration);
      if (t <= keys[0].t) return movePoseOf(keys[0]);
      if (t >= last.t) return movePoseOf(last);
      const i = segmentAt(keys, t);
      const a = keys[i];
      const b = keys[i + 1];
      const e = easeFraction(a.easing, (t - a.t) / (b.t - a.t));
      const straight = interpolatePose(movePoseOf(a), movePoseOf(b), e);
      if (s === 0) return straight;
      // The neighbours beyond the ends are reflections (2·P₀ − P₁), as three.js's open curves.
      const before = keys[i - 1] ?? null;
      const after = keys[i + 2] ?? null;
      const curve = (value: (k: CameraPathKeyframe) => number[]): number[] =>
        centripetalCatmullRom(
          before ? value(before) : reflect(value(a), value(b)),
          value(a),
          value(b),
          after ? value(after) : reflect(value(b), value(a)),
          e,
        );
      const position = curve((k) => k.position);
      const [focal] = curve((k) => [k.focalLengthMm]);
      const [focus] = curve((k) => [k.focusDistanceM]);
      const [roll] = curve((k) => [k.rollDeg]);
      // On one value the centripetal curve is monotone between its segment's ends (its tangents
      // meet Fritsch–Carlson's bound), so a lens value never leaves its two keyframes' range.
      return {
        ...straight,
        position: [
          lerp(straight.position[0], position[0], s),
          lerp(straight.position[1], position[1], s),
          lerp(straight.position[2], position[2], s),
        ],
        focalLengthMm: lerp(straight.focalLengthMm, focal, s),
        focusDistanceM: lerp(straight.focusDistanceM, focus, s),
        rollDeg: lerp(straight.rollDeg, roll, s),
      };
    },
  };
}

/** The index i of the segment [tᵢ, tᵢ₊₁) holding `t` (t strictly inside the keyframes' span). */
function segmentAt(keys: readonly { t: number }[], t: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (keys[mid].t <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

function reflect(end: readonly number[], inner: readonly number[]): number[] {
  return end.map((x, d) => 2 * x - inner[d]);
}

function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += (a[d] - b[d]) ** 2;
  return Math.sqrt(sum);
}

function lerp(a: number, b: number, k: number): number {
  return a + (b - a) * k;
}

function normalized(q: readonly [number, number, number, number]): [number, number, number, number] {
  const n = Math.hypot(...q);
  return n > 0 ? [q[0] / n, q[1] / n, q[2] / n, q[3] / n] : [0, 0, 0, 1];
}
