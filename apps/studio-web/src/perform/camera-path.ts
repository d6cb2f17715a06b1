import { DEFAULT_FRAME, fieldOfView, filmGauge, type FrameFormat } from '../viewport/lens';

export interface CameraPathSample {
  t: number;
  position: [number, number, number];
  quaternion: [number, number, number, number];
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  rollDeg: number;
  verticalFovDeg: number;
}

export type KeyframeEasing = 'linear' | 'ease-in' | 'ease-out' | 'ease-in-out' | 'hold';

/** An authored keyframe (docs/camera-paths.md): a pose at a time, and how the move leaves it. */
export interface CameraPathKeyframe {
  t: number;
  position: [number, number, number];
  quaternion: [number, number, number, number];
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  rollDeg: number;
  easing: KeyframeEasing;
}

export interface CameraPathMarker {
  t: number;
  label: string;
  position: [number, number, number];
  quaternion: [number, number, number, number];
}

/** The camera path file offered beside the video: enough to re-create the move elsewhere. */
export interface CameraPathDocument {
  format: 'scene-studio.camera-path';
  formatVersion: 1;
  sceneVersion: number | null;
  recordedAt: string;
  durationMs: number;
  video: { mimeType: string; aspect: number };
  /** glTF conventions: metres, +Y up, right-handed; the camera looks down its local −Z. */
  coordinateSystem: 'gltf';
  sensor: { widthMm: number; heightMm: number; filmGaugeMm: number };
  samples: CameraPathSample[];
  markers: CameraPathMarker[];
  /** An authored move's keyframes: when present they are the move (samples are a baked copy). */
  keyframes?: CameraPathKeyframe[];
  /** 0 (straight lines between keyframes) to 1 (a smooth curve through them). */
  smoothing?: number;
}

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
  private lastPose: CameraPathPose | null = null;
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
    this.lastPose = null;
    this.startedAt = now;
  }

  sample(now: number, pose: CameraPathPose): void {
    this.lastPose = pose;
    this.samples.push({
      t: round(Math.max(0, now - this.startedAt), 1),
      position: position(pose),
      quaternion: quaternion(pose),
      focalLengthMm: round(pose.focalLengthMm, 2),
      focusDistanceM: round(pose.focusDistanceM, 3),
      fNumber: pose.fNumber,
      rollDeg: round(pose.rollDeg, 2),
      verticalFovDeg: round(fieldOfView(pose.focalLengthMm, this.frame).verticalDeg, 3),
    });
  }

  /** Marks the moment at the last sampled pose (the origin, before any frame); returns its label. */
  marker(now: number): string {
    const pose = this.lastPose;
    const label = `Marker ${this.markers.length + 1}`;
    this.markers.push({
      t: round(now - this.startedAt, 1),
      label,
      position: pose ? position(pose) : [0, 0, 0],
      quaternion: pose ? quaternion(pose) : [0, 0, 0, 1],
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
 * `video.aspect` inside the sensor, viewport/lens.ts) and the aspect.
 */
export function cameraPathHeader(
  frame: FrameFormat,
  facts: Pick<TakeFacts, 'sceneVersion' | 'recordedAt' | 'durationMs' | 'mimeType'>,
): Omit<CameraPathDocument, 'samples' | 'markers' | 'keyframes' | 'smoothing'> {
  return {
    format: 'scene-studio.camera-path',
    formatVersion: 1,
    sceneVersion: facts.sceneVersion,
    recordedAt: facts.recordedAt,
    durationMs: facts.durationMs,
    video: { mimeType: facts.mimeType, aspect: round(frame.aspect.ratio, 6) },
    coordinateSystem: 'gltf',
    sensor: { widthMm: frame.sensor.widthMm, heightMm: frame.sensor.heightMm, filmGaugeMm: round(filmGauge(frame), 4) },
  };
}

function position({ position: p }: CameraPathPose): [number, number, number] {
  return [round(p.x), round(p.y), round(p.z)];
}

function quaternion({ quaternion: q }: CameraPathPose): [number, number, number, number] {
  return [round(q.x, 6), round(q.y, 6), round(q.z, 6), round(q.w, 6)];
}

function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
