import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ImageFormat } from '../image-asset.entity';
import { MAX_PIXELS } from '../image-rules';
import { withIccProfileOf } from '../metadata/jpeg-metadata';
import { ImageDecodeError, ImageHeader, ImageMedia, UprightEncoding } from './image-media';

// Every upload is a different image, so libvips' operation cache would only hold memory.
sharp.cache(false);
// One libvips thread per image: requests already run in parallel on libuv's pool, and on a
// small machine per-image threading oversubscribes the cores and inflates memory.
sharp.concurrency(1);

const SHARP_FORMATS: Record<string, ImageFormat> = { png: 'png', jpeg: 'jpeg', webp: 'webp' };
/**
 * At most this many re-encodes at once per process. Turning an image holds its whole raster
 * (rotation reads it out of order): about 100 MiB for 24 megapixels, where a validation's full
 * decode holds 32×32. Two keep both cores busy without letting a burst of phone photos multiply
 * that by the upload slots.
 */
const MAX_CONCURRENT_REENCODES = 2;
/** Colour spaces an upright re-encode writes as they are read (sRGB is sharp's own default). */
const KEPT_SPACES = new Set<string>(['b-w', 'cmyk', 'rgb16', 'grey16']);

@Injectable()
export class SharpImageMedia extends ImageMedia {
  private readonly reencodes = new Slots(MAX_CONCURRENT_REENCODES);

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

  upright(bytes: Buffer, encoding: UprightEncoding): Promise<Buffer> {
    return this.reencodes.run(() => this.reencodeUpright(bytes, encoding));
  }

  private async reencodeUpright(bytes: Buffer, encoding: UprightEncoding): Promise<Buffer> {
    let out: Buffer | null;
    try {
      const { space } = await sharp(bytes).metadata();
      // keepIccProfile copies the profile and leaves the pixels in its colour space, which
      // toColourspace then keeps too: sharp would otherwise write CMYK and greyscale as sRGB,
      // and 16-bit PNG as 8-bit (or, with the profile kept, fail). No other metadata is written.
      let image = sharp(bytes, { failOn: 'error', limitInputPixels: MAX_PIXELS }).autoOrient().keepIccProfile();
      if (KEPT_SPACES.has(space)) image = image.toColourspace(space);
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

/** A counting semaphore: `run` waits for a free slot, first come first served. */
class Slots {
  private readonly waiting: (() => void)[] = [];

  constructor(private free: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
