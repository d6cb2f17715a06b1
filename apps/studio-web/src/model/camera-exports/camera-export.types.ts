/**
 * What every camera-export writer takes: the camera at each frame of a move, in the studio's
 * world (metres, +Y up, right-handed; glTF axes) and with the camera's own glTF/OpenGL axes (it
 * looks down its local −Z, +Y up in the picture). Plain numbers, so the writers stay pure: no
 * DOM, no three.js, and nothing of how the studio samples a move (camera-export.adapter.ts).
 */
export interface ExportFrame {
  /** Seconds from the start of the move: frame index / fps. */
  time: number;
  /** Camera position in metres. */
  position: [number, number, number];
  /** Camera-to-world rotation, unit quaternion [x, y, z, w]. */
  quaternion: [number, number, number, number];
  focalLengthMm: number;
  focusDistanceM: number;
  fStop: number;
}

export interface CameraExportInput {
  /** Frame i is at time i / fps; frame numbers in every file are these indices, from 0. */
  frames: readonly ExportFrame[];
  /**
   * The part of the sensor the picture uses (the gate: the chosen sensor cut to the frame's
   * aspect), in millimetres. Focal length over this is the field of view the studio draws.
   */
  sensor: { widthMm: number; heightMm: number };
  fps: number;
  /** Near and far clipping distances in metres. */
  clipping: { near: number; far: number };
}

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

/** Rotation matrix of a unit quaternion, rows of the usual column-vector matrix: m[row][col]. */
export function rotationMatrix(q: Quat): [Vec3, Vec3, Vec3] {
  const [x, y, z, w] = normalize(q);
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}

export function normalize(q: Quat): Quat {
  const n = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** a · b (Hamilton product): rotate by b, then by a. */
export function multiply(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/**
 * The quaternions with a consistent sign (q and −q are one orientation): each on the side of the
 * one before, so a reader interpolating linearly between frames turns the short way.
 */
export function continuousQuaternions(quaternions: readonly Quat[]): Quat[] {
  const out: Quat[] = [];
  for (const q of quaternions) {
    const n = normalize(q);
    const prev = out[out.length - 1];
    const dot = prev ? prev[0] * n[0] + prev[1] * n[1] + prev[2] * n[2] + prev[3] * n[3] : 1;
    out.push(dot < 0 ? [-n[0], -n[1], -n[2], -n[3]] : n);
  }
  return out;
}

/** Vertical field of view in radians, from the gate height. */
export function verticalFovRad(focalLengthMm: number, sensor: CameraExportInput['sensor']): number {
  return 2 * Math.atan(sensor.heightMm / 2 / focalLengthMm);
}

/** Refuses an input no file can describe, with a reason a person can act on. */
export function assertExportable(input: CameraExportInput): void {
  if (input.frames.length === 0) throw new Error('A camera export needs at least one frame.');
  if (!(input.fps > 0)) throw new Error('A camera export needs a positive frame rate.');
  if (!(input.sensor.widthMm > 0 && input.sensor.heightMm > 0)) throw new Error('A camera export needs a sensor size.');
  if (!(input.clipping.near > 0 && input.clipping.far > input.clipping.near)) throw new Error('A camera export needs 0 < near < far.');
}

/** A number as the text formats write it: up to `digits` decimals, no trailing zeros, no −0. */
export function num(value: number, digits = 6): string {
  const f = 10 ** digits;
  const r = Math.round(value * f) / f + 0;
  return String(r);
}
