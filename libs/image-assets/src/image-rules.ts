/** 20 MiB: a file of exactly this many bytes is accepted, one more is refused. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const MAX_SIDE_PX = 6144;
export const MAX_PIXELS = 24_000_000;
export const MIN_SOURCE_WIDTH = 1280;
export const MIN_SOURCE_HEIGHT = 720;
export const ASPECT_TOLERANCE = 0.01;
export const UNATTACHED_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function dimensionsExceeded(width: number, height: number): boolean {
  return width > MAX_SIDE_PX || height > MAX_SIDE_PX || width * height > MAX_PIXELS;
}

/** A rule of scene sources an image breaks, named by the code a scene creation with it answers. */
export type SceneSourceRule = 'source_image_too_small' | 'source_image_aspect_ratio';

/**
 * Every scene-source rule an image breaks (docs/api.md, "Errors": `source_image_too_small`,
 * `source_image_aspect_ratio`), in the order a refusal names them (size first, as it always
 * has); empty when it can be a scene source. The two are independent, so both are told at once.
 */
export function sceneSourceRulesBroken(width: number, height: number): SceneSourceRule[] {
  const broken: SceneSourceRule[] = [];
  if (width < MIN_SOURCE_WIDTH || height < MIN_SOURCE_HEIGHT) broken.push('source_image_too_small');
  if (Math.abs(width / height - 16 / 9) / (16 / 9) > ASPECT_TOLERANCE) broken.push('source_image_aspect_ratio');
  return broken;
}
