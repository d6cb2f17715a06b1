import { ImageFormat } from '../image-asset.entity';

export interface ImageHeader {
  format: ImageFormat;
  /** As displayed: after the EXIF orientation is applied. */
  width: number;
  height: number;
  /** The EXIF orientation, 1 to 8; 1 when there is none. */
  orientation: number;
  /** The embedded ICC profile, null when there is none. */
  icc: Buffer | null;
}

/** How an image is written once its orientation is applied to its pixels (metadata/stored-image.ts). */
export type UprightEncoding =
  | { format: 'jpeg'; quality: number }
  | { format: 'png' }
  | { format: 'webp'; lossless: true }
  | { format: 'webp'; lossless: false; quality: number };

export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
}

/** An image whose upright re-encode would hold more memory than a process gives all its re-encodes together. */
export class ImageTooLargeToTurnError extends Error {
  override name = 'ImageTooLargeToTurnError';

  constructor(
    /** The most pixels an image of this format and kind can have to be turned. */
    readonly maxPixels: number,
  ) {
    super(`too large to turn: at most ${maxPixels} pixels`);
  }
}

/**
 * The image codec port. Its implementation is the only code that touches sharp, so its
 * process-wide settings are made once, in one place.
 */
export abstract class ImageMedia {
  /** Reads dimensions from the header without decoding pixels; throws ImageDecodeError. */
  abstract readHeader(bytes: Buffer): Promise<ImageHeader>;
  /** Decodes every pixel, failing on any decoder error; throws ImageDecodeError. */
  abstract decodeFully(bytes: Buffer): Promise<void>;
  /**
   * Re-encodes an image with its EXIF orientation applied to the pixels, keeping its ICC profile
   * (the pixels stay in its colour space) and no other metadata; of an animated image, its first
   * frame. Decodes every pixel, failing on any decoder error; throws ImageDecodeError. Turning
   * holds the whole raster: re-encodes share a memory budget, and one that would not fit in it
   * alone throws ImageTooLargeToTurnError.
   */
  abstract upright(bytes: Buffer, encoding: UprightEncoding): Promise<Buffer>;
  /** A small sRGB rendition (as displayed) for palettes and textures; used by generation. */
  abstract thumbnail(bytes: Buffer, width: number, height: number): Promise<{ rgb: Buffer; width: number; height: number }>;
  /** Re-encodes for use as a texture (JPEG, at most `maxWidth` wide, as displayed). */
  abstract texture(bytes: Buffer, maxWidth: number): Promise<{ bytes: Buffer; width: number; height: number; mimeType: string }>;
}
