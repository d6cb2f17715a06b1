import { ImageFormat } from '../image-asset.entity';

export interface ImageHeader {
  format: ImageFormat;
  /** As displayed: after the EXIF orientation is applied. */
  width: number;
  height: number;
}

export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
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
  /** A small sRGB rendition (as displayed) for palettes and textures; used by generation. */
  abstract thumbnail(bytes: Buffer, width: number, height: number): Promise<{ rgb: Buffer; width: number; height: number }>;
  /** Re-encodes for use as a texture (JPEG, at most `maxWidth` wide, as displayed). */
  abstract texture(bytes: Buffer, maxWidth: number): Promise<{ bytes: Buffer; width: number; height: number; mimeType: string }>;
}
