import { assertExportable, multiply, normalize, num, type CameraExportInput, type Quat, type Vec3 } from './camera-export.types';

export type CameraConvention = 'opengl' | 'opencv';

export const CAMERA_FRAMES_FORMAT = 'scene-studio.camera-frames';
export const CAMERA_FRAMES_FORMAT_VERSION = 1;

export interface CameraFramesDocument {
  format: typeof CAMERA_FRAMES_FORMAT;
  formatVersion: typeof CAMERA_FRAMES_FORMAT_VERSION;
  /**
   * The camera's own axes. opengl: +X right, +Y up, looking down −Z (glTF, three.js, Blender).
   * opencv: +X right, +Y down, looking down +Z (OpenCV, COLMAP). The world is the studio's in both:
   * metres, +Y up, right-handed.
   */
  convention: CameraConvention;
  fps: number;
  /** The picture the intrinsics are for, in pixels. */
  image: { width: number; height: number };
  /** The gate the focal length is measured against, in millimetres. */
  sensor: { widthMm: number; heightMm: number };
  clipping: { near: number; far: number };
  frames: CameraFrame[];
}

export interface CameraFrame {
  /** Frame index from 0; `time` = frame / fps seconds. */
  frame: number;
  time: number;
  /** Pixels; the principal point is the image centre (pixel edges at integers: the centre of a 1920-wide image is 960). */
  intrinsics: { fx: number; fy: number; cx: number; cy: number };
  /** Camera to world: where the camera is, and its axes' rotation as a unit quaternion [x, y, z, w]. */
  extrinsics: { position: Vec3; quaternion: Quat };
  focalLengthMm: number;
  focusDistanceM: number;
  fStop: number;
}

/** Half a turn about the camera's own X: turns OpenGL camera axes into OpenCV ones (Y and Z flip). */
const GL_TO_CV: Quat = [1, 0, 0, 0];

/**
 * The move as one JSON document of per-frame cameras, in OpenGL or OpenCV camera conventions:
 * pinhole intrinsics in pixels for `image` and the camera-to-world pose, for tools that read
 * camera poses frame by frame (NeRF and splat trainers, OpenCV, COLMAP-style pipelines).
 */
export function cameraFramesDocument(
  input: CameraExportInput,
  convention: CameraConvention,
  image: { width: number; height: number },
): CameraFramesDocument {
  assertExportable(input);
  if (!(image.width > 0 && image.height > 0)) throw new Error('A per-frame camera export needs an image size.');
  const { sensor } = input;
  return {
    format: CAMERA_FRAMES_FORMAT,
    formatVersion: CAMERA_FRAMES_FORMAT_VERSION,
    convention,
    fps: input.fps,
    image: { width: image.width, height: image.height },
    sensor: { widthMm: sensor.widthMm, heightMm: sensor.heightMm },
    clipping: { ...input.clipping },
    frames: input.frames.map((f, i) => {
      const q = normalize(f.quaternion);
      const rotation = convention === 'opencv' ? multiply(q, GL_TO_CV) : q;
      return {
        frame: i,
        time: round(f.time, 6),
        intrinsics: {
          fx: round((f.focalLengthMm * image.width) / sensor.widthMm, 4),
          fy: round((f.focalLengthMm * image.height) / sensor.heightMm, 4),
          cx: image.width / 2,
          cy: image.height / 2,
        },
        extrinsics: {
          position: [round(f.position[0], 6), round(f.position[1], 6), round(f.position[2], 6)],
          quaternion: rotation.map((c) => round(c, 9)) as Quat,
        },
        focalLengthMm: round(f.focalLengthMm, 4),
        focusDistanceM: round(f.focusDistanceM, 4),
        fStop: f.fStop,
      };
    }),
  };
}

export function writeCameraFramesJson(
  input: CameraExportInput,
  convention: CameraConvention,
  image: { width: number; height: number },
): string {
  return `${JSON.stringify(cameraFramesDocument(input, convention, image), null, 2)}\n`;
}

function round(value: number, digits: number): number {
  return Number(num(value, digits));
}
