import type { CameraPose } from '../viewport/camera-rig';
import type { FrameFormat } from '../model/lens';
import { CameraPathRecorder, type CameraPathDocument } from '../model/camera-path';

const MIME_TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
const VIDEO_BITS_PER_SECOND = 8_000_000;
const CAPTURE_FPS = 30;

export interface Take {
  index: number;
  durationMs: number;
  mimeType: string;
  video: Blob;
  path: CameraPathDocument;
  pathJson: Blob;
}

/**
 * One take: the canvas as WebM through MediaRecorder, and the camera path (CameraPathRecorder)
 * sampled on every drawn frame (the viewport draws every frame while a take is running).
 * Timestamps are milliseconds from the start of the take, on the same clock as the video.
 */
export class TakeRecorder {
  private recorder: MediaRecorder | null = null;
  private stream: MediaStream | null = null;
  private chunks: Blob[] = [];
  private readonly path = new CameraPathRecorder();
  private startedAt = 0;
  private startedWall = '';
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
    return this.path.markerCount;
  }

  start(canvas: HTMLCanvasElement, sceneVersion: number | null, frame?: FrameFormat): void {
    if (this.recorder) return;
    const mimeType = TakeRecorder.pickMimeType();
    if (!mimeType) throw new Error('This browser cannot record WebM video.');
    this.stream = canvas.captureStream(CAPTURE_FPS);
    const recorder = new MediaRecorder(this.stream, { mimeType, videoBitsPerSecond: VIDEO_BITS_PER_SECOND });
    this.chunks = [];
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
    this.path.start(this.startedAt, frame);
  }

  sample(now: number, pose: CameraPose): void {
    if (this.recorder) this.path.sample(now, pose);
  }

  /** Marks the current moment of the take; returns the marker's label, or null when idle. */
  marker(): string | null {
    return this.recorder ? this.path.marker(performance.now()) : null;
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
        const path = this.path.finish({
          sceneVersion: this.sceneVersion,
          recordedAt: this.startedWall,
          durationMs,
          mimeType: this.mimeType,
        });
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
