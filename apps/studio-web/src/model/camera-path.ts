import {
  CAMERA_PATH_FORMAT,
  CAMERA_PATH_FORMAT_VERSION,
  type CameraPathDocument,
  type CameraPathKeyframe,
  type CameraPathMarker,
  type CameraPathSample,
} from '@scene-studio/camera-path';
import { DEFAULT_FRAME, fieldOfView, filmGauge, type FrameFormat } from './lens';

// The file format itself (its fields, types and limits) is packages/camera-path, shared with the
// studio server's validation; this module adds what the page does with it.
export {
  CAMERA_PATH_FORMAT,
  CAMERA_PATH_FORMAT_VERSION,
  KEYFRAME_EASINGS as EASINGS,
  type CameraPathDocument,
  type CameraPathKeyframe,
  type CameraPathMarker,
  type CameraPathSample,
  type KeyframeEasing,
} from '@scene-studio/camera-path';

/** What a path records of a pose; the rig's pose (three.js vectors) is one. */
export interface CameraPathPose {
  position: { x: number; y: number; z: number };
  quaternion: { x: number; y: number; z: number; w: number };
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  rollDeg: number;
}

export interface TakeFacts {
  sceneVersion: number | null;
  /** ISO 8601 wall-clock time the take started. */
  recordedAt: string;
  durationMs: number;
  mimeType: string;
}

/**
 * The camera path of one take: a sample per drawn frame and the markers dropped, timed in
 * milliseconds from the start of the take. The caller passes the time (`performance.now()` in
 * the page) so samples share the video's clock, and so this stays free of the DOM.
 */
export class CameraPathRecorder {
  private samples: CameraPathSample[] = [];
  private markers: CameraPathMarker[] = [];
  private startedAt = 0;
  private frame: FrameFormat = DEFAULT_FRAME;

  get markerCount(): number {
    return this.markers.length;
  }

  /** `frame`: the rig's sensor and aspect, fixed for the take (the controls lock while it runs). */
  start(now: number, frame: FrameFormat = DEFAULT_FRAME): void {
    this.frame = frame;
    this.samples = [];
    this.markers = [];
    this.startedAt = now;
  }

  sample(now: number, pose: CameraPathPose): void {
    const { position: p, quaternion: q } = pose;
    this.samples.push({
      t: round(Math.max(0, now - this.startedAt), 1),
      ...roundedPose({ ...pose, position: [p.x, p.y, p.z], quaternion: [q.x, q.y, q.z, q.w] }),
      verticalFovDeg: round(fieldOfView(pose.focalLengthMm, this.frame).verticalDeg, 3),
    });
  }

  /** Marks the moment at the last sampled pose (the origin, before any frame); returns its label. */
  marker(now: number): string {
    const last = this.samples[this.samples.length - 1];
    const label = `Marker ${this.markers.length + 1}`;
    this.markers.push({
      t: round(now - this.startedAt, 1),
      label,
      position: last ? [...last.position] : [0, 0, 0],
      quaternion: last ? [...last.quaternion] : [0, 0, 0, 1],
    });
    return label;
  }

  /** The take's path document; the recorder starts empty again. */
  finish(take: TakeFacts): CameraPathDocument {
    const path: CameraPathDocument = {
      ...cameraPathHeader(this.frame, take),
      samples: this.samples,
      markers: this.markers,
    };
    this.samples = [];
    this.markers = [];
    return path;
  }
}

/**
 * Everything of a camera-path file but its poses, for takes, authored moves and saved views alike:
 * the format, what and when it was made on, and its frame — the whole sensor, the film gauge
 * three.js used (the gate's longer side: the gate itself is the largest rectangle of
 * `video.aspect` inside the sensor, model/lens.ts) and the aspect.
 */
export function cameraPathHeader(
  frame: FrameFormat,
  facts: Pick<TakeFacts, 'sceneVersion' | 'recordedAt' | 'durationMs' | 'mimeType'>,
): Omit<CameraPathDocument, 'samples' | 'markers' | 'keyframes' | 'smoothing'> {
  return {
    format: CAMERA_PATH_FORMAT,
    formatVersion: CAMERA_PATH_FORMAT_VERSION,
    sceneVersion: facts.sceneVersion,
    recordedAt: facts.recordedAt,
    durationMs: facts.durationMs,
    video: { mimeType: facts.mimeType, aspect: round(frame.aspect.ratio, 6) },
    coordinateSystem: 'gltf',
    sensor: { widthMm: frame.sensor.widthMm, heightMm: frame.sensor.heightMm, filmGaugeMm: round(filmGauge(frame), 4) },
  };
}

/** camera-move.ts's MovePose, spelled here because that file imports this one (no cycles). */
type MovePose = Omit<CameraPathKeyframe, 't' | 'easing'>;

/**
 * A pose in the file's precision, for every path the studio writes: positions to 0.1 mm,
 * quaternions to 1e-6, focal length to 0.01 mm, focus to 1 mm, roll to 0.01°.
 */
export function roundedPose(pose: MovePose): MovePose {
  const { position: p, quaternion: q } = pose;
  return {
    position: [round(p[0], 4), round(p[1], 4), round(p[2], 4)],
    quaternion: [round(q[0], 6), round(q[1], 6), round(q[2], 6), round(q[3], 6)],
    focalLengthMm: round(pose.focalLengthMm, 2),
    focusDistanceM: round(pose.focusDistanceM, 3),
    fNumber: pose.fNumber,
    rollDeg: round(pose.rollDeg, 2),
  };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  // `+ 0` writes −0 as 0, as JSON does: a document and its file stay equal.
  return Math.round(value * f) / f + 0;
}
