import { ImageFormat } from './image-asset.entity';
import { detectImageFormat } from './image-format';
import { dimensionsExceeded } from './image-rules';
import { ImageDecodeError, ImageMedia, ImageTooLargeToTurnError } from './media/image-media';
import { needsUpright, stripMetadata, uprightEncoding } from './metadata/stored-image';

/** An image as we keep it, or why it cannot be kept (a structure the walkers refuse, bytes that are no image). */
export type MetadataFreeImage = { ok: true; format: ImageFormat; bytes: Buffer } | { ok: false; reason: string };

/**
 * The rules of an upload's stored copy (docs/api.md, "Metadata"), for images we did not receive
 * from a partner: a provider's panorama or thumbnail is stored and served to every studio mode,
 * so it carries no EXIF, XMP, IPTC, comment or text chunk either (a provider may write the
 * prompt into one), only its ICC profile, and its orientation is turned into the pixels. The
 * same walkers and re-encode as an upload; `bytes` is left as it is (the copy is made beside it).
 */
export async function metadataFreeImage(media: ImageMedia, bytes: Buffer): Promise<MetadataFreeImage> {
  const detected = detectImageFormat(bytes);
  if (!detected.format) return { ok: false, reason: 'not a PNG, JPEG or WebP image' };
  const format = detected.format;
  try {
    const header = await media.readHeader(bytes);
    if (header.format !== format) return { ok: false, reason: 'its signature and its decoder disagree' };
    // An upload's limits: turning it upright holds its whole raster.
    if (dimensionsExceeded(header.width, header.height)) return { ok: false, reason: 'its dimensions exceed the limits of an upload' };
    const upright = needsUpright(header.orientation) ? await media.upright(bytes, uprightEncoding(format, bytes)) : bytes;
    // A re-encode's compressed data is our own encoder's, with nothing planted in it.
    return await withoutMetadata(format, upright, upright !== bytes);
  } catch (e) {
    if (e instanceof ImageDecodeError) return { ok: false, reason: 'it does not decode' };
    if (e instanceof ImageTooLargeToTurnError)
      return { ok: false, reason: 'it is too large to be turned upright within the memory budget' };
    throw e;
  }
}

/**
 * The walkers alone, without turning the pixels: for an image embedded in a glTF file (a
 * texture), which renderers draw as stored, whatever its orientation tag said.
 */
export async function metadataFreeEmbeddedImage(bytes: Buffer): Promise<MetadataFreeImage> {
  const detected = detectImageFormat(bytes);
  if (!detected.format) return { ok: false, reason: 'not a PNG, JPEG or WebP image' };
  return withoutMetadata(detected.format, bytes, false);
}

async function withoutMetadata(format: ImageFormat, bytes: Buffer, ownEncoding: boolean): Promise<MetadataFreeImage> {
  const stripped = await stripMetadata(format, bytes, { ownEncoding });
  return stripped.ok ? { ok: true, format, bytes: stripped.bytes } : { ok: false, reason: stripped.reason };
}
