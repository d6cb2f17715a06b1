import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ImageFormat } from '../image-asset.entity';
import { MAX_PIXELS } from '../image-rules';
import { withIccProfileOf } from '../metadata/jpeg-metadata';
import { ByteBudget } from './byte-budget';
import { ImageDecodeError, ImageHeader, ImageMedia, ImageTooLargeToTurnError, UprightEncoding } from './image-media';

// Every upload is a different image, so libvips' operation cache would only hold memory.
sharp.cache(false);
// One libvips thread per image: requests already run in parallel on libuv's pool, and on a
// small machine per-image threading oversubscribes the cores and inflates memory.
sharp.concurrency(1);

const SHARP_FORMATS: Record<string, ImageFormat> = { png: 'png', jpeg: 'jpeg', webp: 'webp' };
/**
 * What the upright re-encodes of one process may hold at once, each counted by its weight
 * (`reencodeWeight`), first come first served: two 24-megapixel RGB JPEGs together (about 110 MiB
 * each, measured), a 24-megapixel 16-bit RGBA PNG alone (209 MiB). One that would not fit even
 * alone is refused. docs/performance.md has the measurements.
 */
export const REENCODE_BUDGET_BYTES = 256 * 1024 * 1024;
/**
 * What decoding, turning and encoding a JPEG or PNG hold, per byte of its decoded raster (pixels ×
 * channels × bytes per sample): the raster itself (turning reads it out of order, so it is held
 * whole) and the codecs' buffers. Measured at 24 megapixels: 1.14 for 8- and 16-bit PNG.
 */
const RASTER_FACTOR = 1.25;
/**
 * libwebp's encoder holds far more than the raster (its own ARGB or YUV copy, tokens, backward
 * references): bytes per pixel, the most measured at 8 and 24 megapixels (noisy images cost most).
 */
const WEBP_BYTES_PER_PIXEL = { lossy: 28, lossless: 48 };
const BYTES_PER_SAMPLE: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  double: 8,
  complex: 8,
};

/**
 * The memory an upright re-encode of an image holds, from its header alone (`meta`, sharp's
 * metadata, read before any pixel is decoded): its working memory by format, bit depth and
 * channels (only the first frame of an animation is turned), and its encoded copy, about the size
 * of the upload, in a buffer that grows by doubling.
 */
export function reencodeWeight(
  meta: Pick<sharp.Metadata, 'width' | 'height' | 'pageHeight' | 'channels' | 'depth'>,
  encoding: UprightEncoding,
  inputBytes: number,
): number {
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  const working =
    encoding.format === 'webp'
      ? pixels * WEBP_BYTES_PER_PIXEL[encoding.lossless ? 'lossless' : 'lossy']
      : pixels * (meta.channels ?? 4) * (BYTES_PER_SAMPLE[meta.depth ?? ''] ?? 2) * RASTER_FACTOR;
  return Math.ceil(working + 2 * inputBytes);
}

/** Colour spaces an upright re-encode writes as they are read (sRGB is sharp's own default). */
const KEPT_SPACES = new Set<string>(['b-w', 'cmyk', 'rgb16', 'grey16']);

@Injectable()
export class SharpImageMedia extends ImageMedia {
  private readonly reencodes = new ByteBudget(REENCODE_BUDGET_BYTES);

  async readHeader(bytes: Buffer): Promise<ImageHeader> {
    let meta: sharp.Metadata;
    try {
      // No pixel limit here: we need the claimed size of a decompression bomb to refuse it.
      meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    } catch {
      throw new ImageDecodeError('header unreadable');
    }
    const format = meta.format ? SHARP_FORMATS[meta.format] : undefined;
    if (!format || !meta.width || !meta.height) throw new ImageDecodeError('header incomplete');
    const orientation = meta.orientation ?? 1;
    const swapped = orientation >= 5;
    return {
      format,
      width: swapped ? meta.height : meta.width,
      height: swapped ? meta.width : meta.height,
      orientation,
      icc: meta.icc ?? null,
    };
  }

  async decodeFully(bytes: Buffer): Promise<void> {
    try {
      // A box shrink reads every pixel (a truncated tail fails) but keeps only a 32×32 result,
      // so a full decode never holds the whole raster in memory.
      await sharp(bytes, { failOn: 'error', sequentialRead: true, limitInputPixels: MAX_PIXELS })
        .resize(32, 32, { fit: 'fill', fastShrinkOnLoad: false })
        .raw()
        .toBuffer();
    } catch {
      throw new ImageDecodeError('decode failed');
    }
  }

  async upright(bytes: Buffer, encoding: UprightEncoding): Promise<Buffer> {
    let meta: sharp.Metadata;
    try {
      meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    } catch {
      throw new ImageDecodeError('header unreadable');
    }
    const weight = reencodeWeight(meta, encoding, bytes.length);
    if (weight > REENCODE_BUDGET_BYTES) {
      const perPixel = (weight - 2 * bytes.length) / Math.max(1, (meta.width ?? 1) * (meta.pageHeight ?? meta.height ?? 1));
      throw new ImageTooLargeToTurnError(Math.floor((REENCODE_BUDGET_BYTES - 2 * bytes.length) / perPixel));
    }
    return this.reencodes.run(weight, () => this.reencodeUpright(bytes, encoding, meta.space));
  }

  private async reencodeUpright(bytes: Buffer, encoding: UprightEncoding, space: string | undefined): Promise<Buffer> {
    let out: Buffer | null;
    try {
      // keepIccProfile copies the profile and leaves the pixels in its colour space, which
      // toColourspace then keeps too: sharp would otherwise write CMYK and greyscale as sRGB,
      // and 16-bit PNG as 8-bit (or, with the profile kept, fail). No other metadata is written.
      let image = sharp(bytes, { failOn: 'error', limitInputPixels: MAX_PIXELS }).autoOrient().keepIccProfile();
      if (space && KEPT_SPACES.has(space)) image = image.toColourspace(space);
      switch (encoding.format) {
        case 'jpeg':
          // Standard Huffman tables: optimised ones hold every coefficient of the image until the
          // end (a 24-megapixel re-encode peaked at 440 MiB instead of 169) for 5-10 % smaller files.
          out = withIccProfileOf(
            await image.jpeg({ quality: encoding.quality, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer(),
            bytes,
          );
          break;
        case 'png':
          out = await image.png({ compressionLevel: 6, adaptiveFiltering: true }).toBuffer();
          break;
        case 'webp':
          out = await image
            .webp(encoding.lossless ? { lossless: true } : { quality: encoding.quality, alphaQuality: 100, smartSubsample: true })
            .toBuffer();
          break;
      }
    } catch {
      throw new ImageDecodeError('re-encode failed');
    }
    if (!out) throw new ImageDecodeError('re-encoded JPEG headers unreadable');
    return out;
  }

  async thumbnail(bytes: Buffer, width: number, height: number): Promise<{ rgb: Buffer; width: number; height: number }> {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS })
      .autoOrient()
      .resize(width, height, { fit: 'fill' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { rgb: data, width: info.width, height: info.height };
  }

  async texture(bytes: Buffer, maxWidth: number): Promise<{ bytes: Buffer; width: number; height: number; mimeType: string }> {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS })
      .autoOrient()
      .resize({ width: maxWidth, withoutEnlargement: true })
      .removeAlpha()
      .jpeg({ quality: 82, mozjpeg: false })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height, mimeType: 'image/jpeg' };
  }
}
