import { fitInBox } from './render-options';
/**
 * What a still may be asked for: the render section's size rule (the largest frame of the view's
 * aspect inside a 16:9 class box, turned for portrait, even pixels, never larger than the GPU can
 * draw), with classes up to 8K. Free of the DOM and of three.js so every rule is unit-tested.
 */

export type StillResolutionId = '1080p' | '2160p' | '4320p';

export interface StillResolution {
  id: StillResolutionId;
  label: string;
  box: { width: number; height: number };
}

export const STILL_RESOLUTIONS: readonly StillResolution[] = [
  { id: '1080p', label: '1080p', box: { width: 1920, height: 1080 } },
  { id: '2160p', label: '4K UHD', box: { width: 3840, height: 2160 } },
  { id: '4320p', label: '8K UHD', box: { width: 7680, height: 4320 } },
];

export const STILL_MIME_TYPE = 'image/png';
export const DEFAULT_STILL_RESOLUTION: StillResolutionId = '2160p';

export interface StillRequest {
  resolution: string;
  /** The view's width over height. */
  aspect: number;
  /** The largest width or height the GPU can draw (StudioViewport.maxDrawingSize). */
  maxDrawingSize: number;
}

export interface StillPlan {
  resolution: StillResolutionId;
  width: number;
  height: number;
}

export type StillPlanResult = { ok: true; plan: StillPlan } | { ok: false; message: string };

/** The still's size for a class and an aspect: the render section's rule, in that class's box. */
export function stillSize(resolution: StillResolutionId, aspect: number): { width: number; height: number } {
  return fitInBox(stillResolution(resolution).box, aspect);
}

/** Whether this device can draw a still of this class at this aspect. */
export function stillFits(resolution: StillResolutionId, aspect: number, maxDrawingSize: number): boolean {
  const { width, height } = stillSize(resolution, aspect);
  return Math.max(width, height) <= maxDrawingSize;
}

/** The largest class this device can draw at this aspect (the select's first choice), or null. */
export function largestStill(aspect: number, maxDrawingSize: number): StillResolutionId | null {
  const fitting = STILL_RESOLUTIONS.filter((r) => stillFits(r.id, aspect, maxDrawingSize));
  return fitting[fitting.length - 1]?.id ?? null;
}

/** Checks a request and works out the still; a refusal says why in words for the user. */
export function planStill(request: StillRequest): StillPlanResult {
  const resolution = STILL_RESOLUTIONS.find((r) => r.id === request.resolution);
  if (!resolution) return { ok: false, message: `Choose ${STILL_RESOLUTIONS.map((r) => r.label).join(', ')}.` };
  if (!Number.isFinite(request.aspect) || request.aspect <= 0) return { ok: false, message: 'The frame has no usable aspect ratio.' };
  const { width, height } = stillSize(resolution.id, request.aspect);
  if (Math.max(width, height) > request.maxDrawingSize) {
    return { ok: false, message: `This device's graphics cannot draw ${width} × ${height}: choose a smaller still.` };
  }
  return { ok: true, plan: { resolution: resolution.id, width, height } };
}

export function stillResolution(id: StillResolutionId): StillResolution {
  return STILL_RESOLUTIONS.find((r) => r.id === id) ?? STILL_RESOLUTIONS[0];
}
