import { assertExportable, num, rotationMatrix, verticalFovRad, type CameraExportInput, type Quat, type Vec3 } from './camera-export.types';

const DEG = 180 / Math.PI;

/**
 * The move as a Nuke channel file (.chan): one line per frame,
 * `frame tx ty tz rx ry rz vfov` — translation in metres, rotation in degrees for Nuke's default
 * rotation order ZXY (Z applied first, then X, then Y: R = Ry·Rx·Rz), and the vertical field of
 * view in degrees, which Nuke's Camera turns back into a focal length through its vertical
 * aperture. Nuke's axes are the studio's (+Y up, the camera looks down −Z). Frames are numbered
 * from 0. Angles are unwrapped (kept within 180° of the previous frame's) so Nuke's per-channel
 * interpolation never spins the long way round. Blender's chan add-on builds the same pose from it
 * with its rotation order set to ZXY (its R is also Ry·Rx·Rz) and "Make Z up" (docs/embed.md).
 */
export function writeNukeChan(input: CameraExportInput): string {
  assertExportable(input);
  let previous: Vec3 | null = null;
  const lines = input.frames.map((f, i) => {
    const euler = unwrap(eulerZXY(f.quaternion), previous);
    previous = euler;
    const vfov = verticalFovRad(f.focalLengthMm, input.sensor) * DEG;
    return [i, ...f.position.map((v) => num(v)), ...euler.map((v) => num(v)), num(vfov)].join('\t');
  });
  return `${lines.join('\n')}\n`;
}

/**
 * [rx, ry, rz] in degrees with R = Ry(ry)·Rx(rx)·Rz(rz) — three.js's Euler order 'YXZ', which is
 * how the studio's rig turns (yaw, then pitch, then roll): rx is the tilt, ry the pan, rz the roll.
 */
export function eulerZXY(q: Quat): Vec3 {
  const m = rotationMatrix(q);
  const x = Math.asin(-clamp(m[1][2]));
  let y: number;
  let z: number;
  if (Math.abs(m[1][2]) < 0.9999999) {
    y = Math.atan2(m[0][2], m[2][2]);
    z = Math.atan2(m[1][0], m[1][1]);
  } else {
    // Looking straight up or down: pan and roll turn about the same axis; put it all in the pan.
    y = Math.atan2(-m[2][0], m[0][0]);
    z = 0;
  }
  return [x * DEG, y * DEG, z * DEG];
}

function unwrap(angles: Vec3, previous: Vec3 | null): Vec3 {
  if (!previous) return angles;
  return angles.map((a, k) => a + 360 * Math.round((previous[k] - a) / 360)) as Vec3;
}

function clamp(v: number): number {
  return Math.min(1, Math.max(-1, v));
}
