import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ImageFormat } from '../image-asset.entity';
import { MAX_PIXELS } from '../image-rules';
import { ImageDecodeError, ImageHeader, ImageMedia } from './image-media';

// Every upload is a different image, so libvips' operation cache would only hold memory.
sharp.cache(false);
// One libvips thread per image: requests already run in parallel on libuv's pool, and on a
// small machine per-image threading oversubscribes the cores and inflates memory.
sharp.concurrency(1);

const SHARP_FORMATS: Record<string, ImageFormat> = { png: 'png', jpeg: 'jpeg', webp: 'webp' };

@Injectable()
export class SharpImageMedia extends ImageMedia {
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
    const swapped = (meta.orientation ?? 1) >= 5;
    return { format, width: swapped ? meta.height : meta.width, height: swapped ? meta.width : meta.height };
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
