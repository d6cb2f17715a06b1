import type { CameraPose } from '../viewport/camera-rig';
import { FRAME_ASPECT, SENSOR_HEIGHT_MM, SENSOR_WIDTH_MM, fieldOfView } from '../viewport/lens';

const MIME_TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
const VIDEO_BITS_PER_SECOND = 8_000_000;
const CAPTURE_FPS = 30;

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
}

export interface Take {
  index: number;
  durationMs: number;
  mimeType: string;
  video: Blob;
  path: CameraPathDocument;
  pathJson: Blob;
}

/**
 * One take: the canvas as WebM through MediaRecorder, and the camera path sampled on every
 * drawn frame (the viewport draws every frame while a take is running). Timestamps are
 * milliseconds from the start of the take, on the same clock as the video.
 */
export class TakeRecorder {
  private recorder: MediaRecorder | null = null;
  private stream: MediaStream | null = null;
  private chunks: Blob[] = [];
  private samples: CameraPathSample[] = [];
  private markers: CameraPathMarker[] = [];
  private startedAt = 0;
  private startedWall = '';
  private lastPose: CameraPose | null = null;
  private mimeType = '';
  private takeCount = 0;
  private sceneVersion: number | null = null;

  static pickMimeType(): string | null {
    if (typeof MediaRecorder === 'undefined') return null;
    return MIME_TYPES.find((type) => MediaRecorder.isTypeSupported(type)) ?? null;
  }

  static get supported(): boolean {
    return TakeRecorder.pickMimeType() !== null && typeof HTMLCanvasElement.prototype.captureStream === 'function';
  }

  get recording(): boolean {
    return this.recorder !== null;
  }

  get elapsedMs(): number {
    return this.recorder ? performance.now() - this.startedAt : 0;
  }

  get currentMimeType(): string {
    return this.mimeType;
  }

  get markerCount(): number {
    return this.markers.length;
  }

  start(canvas: HTMLCanvasElement, sceneVersion: number | null): void {
    if (this.recorder) return;
    const mimeType = TakeRecorder.pickMimeType();
    if (!mimeType) throw new Error('This browser cannot record WebM video.');
    this.stream = canvas.captureStream(CAPTURE_FPS);
    const recorder = new MediaRecorder(this.stream, { mimeType, videoBitsPerSecond: VIDEO_BITS_PER_SECOND });
    this.chunks = [];
    this.samples = [];
    this.markers = [];
    this.lastPose = null;
    this.sceneVersion = sceneVersion;
    this.mimeType = recorder.mimeType || mimeType;
    recorder.addEventListener('dataavailable', (event) => {
      if (event.data.size > 0) this.chunks.push(event.data);
    });
    // A timeslice keeps memory in small blobs and lets a long take survive a tab crash sooner.
    recorder.start(1000);
    this.recorder = recorder;
    this.startedAt = performance.now();
    this.startedWall = new Date().toISOString();
  }

  sample(now: number, pose: CameraPose): void {
    if (!this.recorder) return;
    this.lastPose = pose;
    const t = Math.max(0, now - this.startedAt);
    this.samples.push({
      t: round(t, 1),
      position: [round(pose.position.x), round(pose.position.y), round(pose.position.z)],
      quaternion: [round(pose.quaternion.x, 6), round(pose.quaternion.y, 6), round(pose.quaternion.z, 6), round(pose.quaternion.w, 6)],
      focalLengthMm: round(pose.focalLengthMm, 2),
      focusDistanceM: round(pose.focusDistanceM, 3),
      fNumber: pose.fNumber,
      rollDeg: round(pose.rollDeg, 2),
      verticalFovDeg: round(fieldOfView(pose.focalLengthMm, FRAME_ASPECT).verticalDeg, 3),
    });
  }

  /** Marks the current moment of the take; returns the marker's label, or null when idle. */
  marker(): string | null {
    if (!this.recorder) return null;
    const pose = this.lastPose;
    const label = `Marker ${this.markers.length + 1}`;
    this.markers.push({
      t: round(performance.now() - this.startedAt, 1),
      label,
      position: pose ? [round(pose.position.x), round(pose.position.y), round(pose.position.z)] : [0, 0, 0],
      quaternion: pose
        ? [round(pose.quaternion.x, 6), round(pose.quaternion.y, 6), round(pose.quaternion.z, 6), round(pose.quaternion.w, 6)]
        : [0, 0, 0, 1],
    });
    return label;
  }

  stop(): Promise<Take> {
    const recorder = this.recorder;
    if (!recorder) return Promise.reject(new Error('Not recording.'));
    this.recorder = null;
    const durationMs = Math.round(performance.now() - this.startedAt);
    return new Promise<Take>((resolve, reject) => {
      recorder.addEventListener('stop', () => {
        this.stream?.getTracks().forEach((track) => track.stop());
        this.stream = null;
        const video = new Blob(this.chunks, { type: this.mimeType });
        this.chunks = [];
        this.takeCount++;
        const path: CameraPathDocument = {
          format: 'scene-studio.camera-path',
          formatVersion: 1,
          sceneVersion: this.sceneVersion,
          recordedAt: this.startedWall,
          durationMs,
          video: { mimeType: this.mimeType, aspect: round(FRAME_ASPECT, 6) },
          coordinateSystem: 'gltf',
          sensor: { widthMm: SENSOR_WIDTH_MM, heightMm: SENSOR_HEIGHT_MM, filmGaugeMm: SENSOR_WIDTH_MM },
          samples: this.samples,
          markers: this.markers,
        };
        this.samples = [];
        this.markers = [];
        resolve({
          index: this.takeCount,
          durationMs,
          mimeType: this.mimeType,
          video,
          path,
          pathJson: new Blob([JSON.stringify(path)], { type: 'application/json' }),
        });
      });
      recorder.addEventListener('error', () => reject(new Error('The recorder failed.')));
      recorder.stop();
    });
  }
}

function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
