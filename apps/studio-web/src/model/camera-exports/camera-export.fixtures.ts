import type { CameraExportInput, ExportFrame, Quat } from './camera-export.types';

/** A turn of `deg` degrees about the world's +Y (a pan to the left), as [x, y, z, w]. */
export function yaw(deg: number): Quat {
  const half = (deg * Math.PI) / 360;
  return [0, Math.sin(half), 0, Math.cos(half)];
}

/** Three frames at 24 fps on a full-frame 16:9 gate: a pan left with a push in on the lens. */
export function exportInput(overrides: Partial<CameraExportInput> = {}): CameraExportInput {
  const frame = (i: number, f: Partial<ExportFrame>): ExportFrame => ({
    time: i / 24,
    position: [0, 1.6, 5],
    quaternion: [0, 0, 0, 1],
    focalLengthMm: 35,
    focusDistanceM: 4,
    fStop: 2.8,
    ...f,
  });
  return {
    frames: [
      frame(0, {}),
      frame(1, { position: [0.5, 1.6, 4.5], quaternion: yaw(45), focalLengthMm: 50, focusDistanceM: 3 }),
      frame(2, { position: [1, 1.7, 4], quaternion: yaw(90), focalLengthMm: 85, focusDistanceM: 2, fStop: 4 }),
    ],
    sensor: { widthMm: 36, heightMm: 20.25 },
    fps: 24,
    clipping: { near: 0.05, far: 1000 },
    ...overrides,
  };
}
