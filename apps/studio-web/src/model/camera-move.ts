import type { CameraPathDocument, CameraPathSample } from './camera-path';

/** One pose of a camera move, in the camera-path file's units (metres, glTF axes, degrees). */
export interface MovePose {
  position: [number, number, number];
  /** The camera's orientation, roll included (as the path file stores it). */
  quaternion: [number, number, number, number];
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  rollDeg: number;
}

/**
 * A camera move: anything that can say where the camera is at a time. A recorded take, a
 * keyframed timeline and a saved path are all moves, so playback and the offline render take
 * any of them and never care where the poses came from.
 */
export interface CameraMove {
  readonly durationMs: number;
  /** The pose at `tMs` (clamped to the move's span). */
  poseAt(tMs: number): MovePose;
}

/**
 * The move a recorded path describes: its samples, interpolated between neighbours (positions
 * and lens values linearly, orientations along the shorter great arc), so a render at any frame
 * rate lands between the take's own frames.
 */
export function moveFromPath(path: Pick<CameraPathDocument, 'durationMs' | 'samples'>): CameraMove {
  const samples = [...path.samples].sort((a, b) => a.t - b.t);
  if (samples.length === 0) throw new Error('A camera path without samples is not a move.');
  const last = samples[samples.length - 1];
  const durationMs = Math.max(path.durationMs, last.t);
  return {
    durationMs,
    poseAt(tMs: number): MovePose {
      const t = Math.min(Math.max(tMs, 0), durationMs);
      const after = firstIndexAtOrAfter(samples, t);
      if (after === 0) return movePoseOf(samples[0]);
      if (after === -1) return movePoseOf(last);
      const a = samples[after - 1];
      const b = samples[after];
      const span = b.t - a.t;
      return interpolatePose(movePoseOf(a), movePoseOf(b), span <= 0 ? 1 : (t - a.t) / span);
    },
  };
}

/** The pose a fraction `k` (0 to 1) of the way from `a` to `b`. */
export function interpolatePose(a: MovePose, b: MovePose, k: number): MovePose {
  return {
    position: [lerp(a.position[0], b.position[0], k), lerp(a.position[1], b.position[1], k), lerp(a.position[2], b.position[2], k)],
    quaternion: slerp(a.quaternion, b.quaternion, k),
    focalLengthMm: lerp(a.focalLengthMm, b.focalLengthMm, k),
    focusDistanceM: lerp(a.focusDistanceM, b.focusDistanceM, k),
    // An aperture is a stop, not a continuum a lens passes through: it changes at the midpoint.
    fNumber: k < 0.5 ? a.fNumber : b.fNumber,
    rollDeg: lerp(a.rollDeg, b.rollDeg, k),
  };
}

/** The pose a sample or keyframe holds (its arrays copied: the move never shares the file's). */
export function movePoseOf(p: MovePose): MovePose {
  return {
    position: [...p.position],
    quaternion: [...p.quaternion],
    focalLengthMm: p.focalLengthMm,
    focusDistanceM: p.focusDistanceM,
    fNumber: p.fNumber,
    rollDeg: p.rollDeg,
  };
}

/** Binary search: the first sample at or after `t`, or −1 when every sample is before it. */
function firstIndexAtOrAfter(samples: readonly CameraPathSample[], t: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo === samples.length ? -1 : lo;
}

function lerp(a: number, b: number, k: number): number {
  return a + (b - a) * k;
}

type Quat = [number, number, number, number];

function slerp(a: Quat, b: Quat, k: number): Quat {
  let [bx, by, bz, bw] = b;
  let cos = a[0] * bx + a[1] * by + a[2] * bz + a[3] * bw;
  // q and −q are the same orientation: take the one on a's side so the camera turns the short way.
  if (cos < 0) {
    [bx, by, bz, bw] = [-bx, -by, -bz, -bw];
    cos = -cos;
  }
  let wa: number;
  let wb: number;
  if (cos > 0.9995) {
    wa = 1 - k;
    wb = k;
  } else {
    const theta = Math.acos(cos);
    const sin = Math.sin(theta);
    wa = Math.sin((1 - k) * theta) / sin;
    wb = Math.sin(k * theta) / sin;
  }
  const q: Quat = [wa * a[0] + wb * bx, wa * a[1] + wb * by, wa * a[2] + wb * bz, wa * a[3] + wb * bw];
  const n = Math.hypot(...q);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}
