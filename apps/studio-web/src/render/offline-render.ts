import type { CameraMove } from '../model/camera-move';
import type { FrameFormat } from '../model/lens';
import type { ViewportCapture } from '../viewport/studio-viewport';
import type { VideoWriter } from './media-encoding';
import type { MediaModule } from './media-loader';
import { frameTimeMs, type RenderPlan } from './render-options';

/** What an offline render needs of the viewport (StudioViewport). */
export interface CaptureTarget {
  beginCapture(width: number, height: number, frame?: FrameFormat): ViewportCapture;
}

export interface RenderJob {
  move: CameraMove;
  plan: RenderPlan;
  /** The move's sensor and aspect, when it says; otherwise the rig's frame is kept. */
  frame?: FrameFormat;
}

export interface RenderCallbacks {
  signal: AbortSignal;
  /** `done` of `total` frames are drawn and with the encoder. */
  onProgress(done: number, total: number): void;
  /** Frame `index` (taken at `tMs` of the move) was just drawn; the viewport's camera is at its pose. */
  onDrawn?(index: number, tMs: number): void;
}

export interface RenderedVideo {
  video: Blob;
  mimeType: string;
  frames: number;
  fps: number;
  width: number;
  height: number;
  durationMs: number;
}

/**
 * Renders a camera move frame by frame, independent of the live frame rate: frame i is the move's
 * pose at i / fps, drawn at the output size once it is final (viewport capture: a splat world's
 * sort included), and handed to the encoder with the timestamp i / fps and a duration of 1 / fps.
 * However slow the GPU, the video has exactly `plan.frames` frames at `plan.fps`.
 *
 * Cancelling (the signal) or any failure drops what was encoded; the viewport is given back as it
 * was in every case, and as soon as the last frame is drawn (the encoder drains after).
 */
export async function renderMove(
  target: CaptureTarget,
  media: Pick<MediaModule, 'openVideoWriter'>,
  job: RenderJob,
  callbacks: RenderCallbacks,
): Promise<RenderedVideo> {
  const { plan } = job;
  const { signal } = callbacks;
  signal.throwIfAborted();
  const capture = target.beginCapture(plan.width, plan.height, job.frame);
  let writer: VideoWriter | null = null;
  try {
    const open = await media.openVideoWriter(capture.canvas, {
      container: plan.container,
      width: plan.width,
      height: plan.height,
      fps: plan.fps,
      bitrate: plan.bitrate,
    });
    writer = open;
    for (let index = 0; index < plan.frames; index++) {
      const tMs = frameTimeMs(index, plan.fps);
      // Resolves once the encoder has taken the frame (and can take the next: backpressure).
      await capture.draw(
        job.move.poseAt(tMs),
        () => {
          callbacks.onDrawn?.(index, tMs);
          return open.add(index);
        },
        signal,
      );
      callbacks.onProgress(index + 1, plan.frames);
    }
    capture.end();
    signal.throwIfAborted();
    const { video, mimeType } = await open.finish();
    // Cancelled while the encoder drained: nothing is handed over.
    signal.throwIfAborted();
    return { video, mimeType, frames: plan.frames, fps: plan.fps, width: plan.width, height: plan.height, durationMs: plan.durationMs };
  } catch (e) {
    await writer?.cancel().catch(() => undefined);
    throw e;
  } finally {
    capture.end();
  }
}
