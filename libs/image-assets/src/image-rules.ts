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

/**
 * Why an image cannot be a scene source (docs/api.md, "Errors": `source_image_too_small`,
 * `source_image_aspect_ratio`), or null when it can.
 */
export function sceneSourceProblem(width: number, height: number): 'too_small' | 'aspect_ratio' | null {
  if (width < MIN_SOURCE_WIDTH || height < MIN_SOURCE_HEIGHT) return 'too_small';
  if (Math.abs(width / height - 16 / 9) / (16 / 9) > ASPECT_TOLERANCE) return 'aspect_ratio';
  return null;
}
