import { ImageFormat } from '../image-asset.entity';
import { UprightEncoding } from '../media/image-media';
import { stripJpegMetadata } from './jpeg-metadata';
import { stripPngMetadata } from './png-metadata';
import { StripOptions, StripResult } from './strip-result';
import { stripWebpMetadata, webpBitstream } from './webp-metadata';

/**
 * The per-format rules for the bytes stored for an upload (docs/api.md, "Metadata"): no metadata
 * but the ICC profile, and the orientation in the pixels. Metadata is removed without re-encoding;
 * only an image whose EXIF orientation is not 1 is re-encoded, because turning its pixels is not
 * lossless in general (JPEG) and the orientation tag goes with the EXIF that is removed.
 */

/** JPEG re-encodes: quality 95 with full-resolution chroma (4:4:4), visually lossless. */
export const JPEG_UPRIGHT_QUALITY = 95;
/** Lossy WebP re-encodes: quality 95, sharp (smart) RGB→YUV conversion, lossless alpha. */
export const WEBP_UPRIGHT_QUALITY = 95;

/** Orientations 2 to 8 move the pixels; 1 (or none) leaves them as stored. */
export function needsUpright(orientation: number): boolean {
  return orientation >= 2 && orientation <= 8;
}

/** PNG and lossless WebP stay lossless; JPEG and lossy WebP are written at a visually lossless quality. */
export function uprightEncoding(format: ImageFormat, bytes: Buffer): UprightEncoding {
  switch (format) {
    case 'jpeg':
      return { format, quality: JPEG_UPRIGHT_QUALITY };
    case 'png':
      return { format };
    case 'webp':
      return webpBitstream(bytes) === 'lossless' ? { format, lossless: true } : { format, lossless: false, quality: WEBP_UPRIGHT_QUALITY };
  }
}

/**
 * The bytes to store, without metadata and without anything a decoder does not read (docs/api.md,
 * "Metadata"), or why the file's structure cannot be walked.
 */
export async function stripMetadata(format: ImageFormat, bytes: Buffer, options: StripOptions = {}): Promise<StripResult> {
  switch (format) {
    case 'jpeg':
      return stripJpegMetadata(bytes, options);
    case 'png':
      return stripPngMetadata(bytes, options);
    case 'webp':
      return stripWebpMetadata(bytes, options);
  }
}
