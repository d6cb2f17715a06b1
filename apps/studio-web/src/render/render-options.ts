import { formatBytes } from '../ui/format';
import { MAX_DURATION_MS } from '../model/camera-path-file';
/**
 * What an offline render may be asked for, and the arithmetic behind it: frame times, output
 * sizes, bitrates and the limits a request is checked against. Free of the DOM and of three.js
 * so every rule is unit-tested.
 */

export const RENDER_FRAME_RATES = [24, 25, 30, 60] as const;
export type RenderFrameRate = (typeof RENDER_FRAME_RATES)[number];

export type ResolutionId = '720p' | '1080p' | '2160p';
export type ContainerId = 'mp4' | 'webm';

export interface ResolutionPreset {
  id: ResolutionId;
  label: string;
  /** The 16:9 box of the class; other aspects fit inside it (or inside it turned, for portrait). */
  box: { width: number; height: number };
}

export const RESOLUTIONS: readonly ResolutionPreset[] = [
  { id: '720p', label: '720p', box: { width: 1280, height: 720 } },
  { id: '1080p', label: '1080p', box: { width: 1920, height: 1080 } },
  { id: '2160p', label: '4K UHD', box: { width: 3840, height: 2160 } },
];

export interface ContainerPreset {
  id: ContainerId;
  label: string;
  /** mediabunny's codec name. */
  codec: 'avc' | 'vp9';
  extension: '.mp4' | '.webm';
  /** The file's type without codecs, as `render.started` announces it. */
  mimeType: 'video/mp4' | 'video/webm';
}

export const CONTAINERS: readonly ContainerPreset[] = [
  { id: 'mp4', label: 'MP4 (H.264)', codec: 'avc', extension: '.mp4', mimeType: 'video/mp4' },
  { id: 'webm', label: 'WebM (VP9)', codec: 'vp9', extension: '.webm', mimeType: 'video/webm' },
];

export const DEFAULT_RENDER = { fps: 30 as RenderFrameRate, resolution: '1080p' as ResolutionId, container: 'mp4' as ContainerId };

/**
 * The whole video is built in memory (the sandboxed frame cannot write files) and then copied
 * once into the Blob handed over, so a render must stay well inside what a tab can hold.
 */
export const MAX_RENDER_BYTES = 1024 ** 3;
/**
 * Bits per pixel per frame: 1080p at 30 fps is 9.3 Mbit/s, 4K at 30 fps 37 Mbit/s — the rates
 * video platforms recommend for high-quality uploads, with room for VP9, which needs less.
 */
const BITS_PER_PIXEL = 0.15;

/** Frames of a move at `fps`: enough to cover it, the last one starting before its end. */
export function frameCount(durationMs: number, fps: number): number {
  // The epsilon keeps 2000 ms at 30 fps at 60 frames despite binary fractions.
  return Math.max(1, Math.ceil((durationMs * fps) / 1000 - 1e-6));
}

/** When frame `index` is taken from the move, in milliseconds: i / fps, never a wall clock. */
export function frameTimeMs(index: number, fps: number): number {
  return (index * 1000) / fps;
}

/** The video's length: whole frames of 1 / fps each. */
export function videoDurationMs(frames: number, fps: number): number {
  return (frames * 1000) / fps;
}

/**
 * The output size for a resolution class and a frame aspect (width / height): the largest frame
 * of that aspect inside the class's box — turned for portrait aspects, so 9:16 at 1080p is
 * 1080 × 1920 — in even pixels, as H.264's 4:2:0 sampling needs.
 */
export function outputSize(resolution: ResolutionId, aspect: number): { width: number; height: number } {
  return fitInBox(resolutionPreset(resolution).box, aspect);
}

/** The size rule itself, for any 16:9 class box (stills use it with their own classes). */
export function fitInBox(box: { width: number; height: number }, aspect: number): { width: number; height: number } {
  const [boxWidth, boxHeight] = aspect >= 1 ? [box.width, box.height] : [box.height, box.width];
  const width = Math.min(boxWidth, boxHeight * aspect);
  return { width: even(width), height: even(width / aspect) };
}

export function videoBitrate(width: number, height: number, fps: number): number {
  return Math.round(width * height * fps * BITS_PER_PIXEL);
}

export function estimatedBytes(bitrate: number, durationMs: number): number {
  return Math.ceil((bitrate / 8) * (durationMs / 1000));
}

export interface RenderRequest {
  durationMs: number;
  fps: number;
  resolution: string;
  container: string;
  /** The frame's width over height. */
  aspect: number;
  /** The largest width or height the GPU can draw (StudioViewport.maxDrawingSize). */
  maxDrawingSize: number;
}

export interface RenderPlan {
  fps: RenderFrameRate;
  resolution: ResolutionId;
  container: ContainerPreset;
  width: number;
  height: number;
  frames: number;
  durationMs: number;
  bitrate: number;
}

export type PlanResult = { ok: true; plan: RenderPlan } | { ok: false; message: string };

/** Checks a request and works out the render; a refusal says why in words for the user. */
export function planRender(request: RenderRequest): PlanResult {
  const fps = RENDER_FRAME_RATES.find((r) => r === request.fps);
  if (fps === undefined) return refuse(`Choose a frame rate of ${RENDER_FRAME_RATES.join(', ')} frames per second.`);
  const resolution = RESOLUTIONS.find((r) => r.id === request.resolution);
  if (!resolution) return refuse('Choose 720p, 1080p or 4K UHD.');
  const container = CONTAINERS.find((c) => c.id === request.container);
  if (!container) return refuse('Choose MP4 (H.264) or WebM (VP9).');
  if (!Number.isFinite(request.durationMs) || request.durationMs <= 0) {
    return refuse('This camera move has no length (a single view): there is nothing to render as a video.');
  }
  if (request.durationMs > MAX_DURATION_MS) return refuse('Camera moves longer than an hour cannot be rendered.');
  if (!Number.isFinite(request.aspect) || request.aspect <= 0) return refuse('The frame has no usable aspect ratio.');
  const { width, height } = outputSize(resolution.id, request.aspect);
  if (Math.max(width, height) > request.maxDrawingSize) {
    return refuse(`This device's graphics cannot draw ${width} × ${height}: choose a lower resolution.`);
  }
  const frames = frameCount(request.durationMs, fps);
  const durationMs = videoDurationMs(frames, fps);
  const bitrate = videoBitrate(width, height, fps);
  const bytes = estimatedBytes(bitrate, durationMs);
  if (bytes > MAX_RENDER_BYTES) {
    return refuse(
      `This render would be about ${formatBytes(bytes)}, more than the ${formatBytes(MAX_RENDER_BYTES)} the studio can hold: ` +
        'choose a lower resolution or frame rate, or a shorter move.',
    );
  }
  return { ok: true, plan: { fps, resolution: resolution.id, container, width, height, frames, durationMs, bitrate } };
}

export function resolutionPreset(id: ResolutionId): ResolutionPreset {
  return RESOLUTIONS.find((r) => r.id === id) ?? RESOLUTIONS[0];
}

function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}

function refuse(message: string): PlanResult {
  return { ok: false, message };
}
