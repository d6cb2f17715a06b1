import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** Images for tests, generated in code: no binary fixtures in the repository. */

type Kind = 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'avif';

export async function image(kind: Kind, width: number, height: number, opts: { noise?: boolean } = {}): Promise<Buffer> {
  const base = sharp({
    create: opts.noise
      ? { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } }
      : { width, height, channels: 3, background: { r: 40, g: 90, b: 160 } },
  });
  switch (kind) {
    case 'png':
      return base.png().toBuffer();
    case 'jpeg':
      return base.jpeg({ quality: 85 }).toBuffer();
    case 'webp':
      return base.webp({ quality: 80 }).toBuffer();
    case 'gif':
      return base.gif().toBuffer();
    case 'tiff':
      return base.tiff().toBuffer();
    case 'avif':
      return base.avif({ quality: 40 }).toBuffer();
  }
}

/** A JPEG stored portrait (`storedWidth`×`storedHeight`) with an EXIF orientation that displays it rotated. */
export async function rotatedJpeg(storedWidth: number, storedHeight: number, orientation: number): Promise<Buffer> {
  return sharp({ create: { width: storedWidth, height: storedHeight, channels: 3, background: '#808080' } })
    .jpeg()
    .withMetadata({ orientation })
    .toBuffer();
}

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    let c = (crc ^ byte) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A decompression bomb: a few hundred bytes whose header claims `width`×`height` pixels. */
export function pngBombHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(4096))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A valid PNG of exactly `size` bytes: an uncompressed noise image just under the size, padded
 * with an ancillary text chunk that decoders skip.
 */
export async function pngOfExactSize(size: number): Promise<Buffer> {
  const width = 2048;
  // Stored (level 0) deflate: about height × (width × 3 + 1) bytes of image data.
  let height = Math.floor((size - 70_000) / (width * 3 + 1));
  let png: Buffer;
  for (;;) {
    png = await sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    if (png.length <= size - 100) break;
    height -= 4;
  }
  const iendAt = png.length - 12;
  const padLength = size - png.length - 12;
  const keyword = Buffer.from('Comment\0', 'latin1');
  const pad = pngChunk('tEXt', Buffer.concat([keyword, Buffer.alloc(padLength - keyword.length, 0x20)]));
  const out = Buffer.concat([png.subarray(0, iendAt), pad, png.subarray(iendAt)]);
  if (out.length !== size) throw new Error(`built ${out.length} bytes, wanted ${size}`);
  return out;
}

/** Headers of formats we refuse, enough for any signature sniffer. */
export const foreignFiles: Record<string, () => Promise<Buffer> | Buffer> = {
  gif: () => image('gif', 16, 16),
  tiff: () => image('tiff', 16, 16),
  avif: () => image('avif', 16, 16),
  bmp: () => {
    const header = Buffer.alloc(54);
    header.write('BM', 0, 'latin1');
    header.writeUInt32LE(54 + 16 * 16 * 3, 2);
    header.writeUInt32LE(54, 10);
    header.writeUInt32LE(40, 14);
    header.writeInt32LE(16, 18);
    header.writeInt32LE(16, 22);
    header.writeUInt16LE(1, 26);
    header.writeUInt16LE(24, 28);
    return Buffer.concat([header, Buffer.alloc(16 * 16 * 3, 0x7f)]);
  },
  svg: () =>
    Buffer.from(
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080"><rect width="100%" height="100%"/></svg>',
    ),
  heic: () => {
    const ftyp = Buffer.alloc(24);
    ftyp.writeUInt32BE(24, 0);
    ftyp.write('ftypheic', 4, 'latin1');
    ftyp.write('mif1heic', 16, 'latin1');
    return Buffer.concat([ftyp, Buffer.alloc(200)]);
  },
  pdf: () => Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
  text: () => Buffer.from('just some text, certainly not an image\n'),
  empty: () => Buffer.alloc(0),
};
