import { crc32, deflateSync } from 'node:zlib';
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

/** Text in every metadata block of a `photoWithMetadata`: none of it may survive an upload. */
export const METADATA_MARKER = 'SECRET-METADATA';

export type TiffValue =
  | { tag: number; type: 'ascii'; value: string }
  | { tag: number; type: 'short' | 'long'; value: number }
  | { tag: number; type: 'rational'; value: [number, number][] };

/** A big-endian TIFF structure of two IFDs (IFD0 and the GPS IFD it points to), as EXIF holds them. */
export function exifTiff(ifd0: TiffValue[], gps: TiffValue[]): Buffer {
  const header = Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]);
  const entries0 = (gpsAt: number): TiffValue[] => {
    const pointer: TiffValue = { tag: 0x8825, type: 'long', value: gpsAt };
    return [...ifd0, pointer].sort((a, b) => a.tag - b.tag);
  };
  // The GPS IFD follows IFD0 and its data, whose size does not depend on the pointer's value.
  const gpsAt = 8 + ifdBytes(entries0(0), 8, 0).length;
  const withPointer = ifdBytes(entries0(gpsAt), 8, 0);
  return Buffer.concat([
    header,
    withPointer,
    ifdBytes(
      [...gps].sort((a, b) => a.tag - b.tag),
      gpsAt,
      0,
    ),
  ]);
}

function ifdBytes(entries: TiffValue[], at: number, next: number): Buffer {
  const table = Buffer.alloc(2 + entries.length * 12 + 4);
  table.writeUInt16BE(entries.length, 0);
  const data: Buffer[] = [];
  let dataAt = at + table.length;
  entries.forEach((e, i) => {
    const o = 2 + i * 12;
    let type: number;
    let count: number;
    let value: Buffer;
    if (e.type === 'ascii') {
      [type, value] = [2, Buffer.from(`${e.value}\0`, 'latin1')];
      count = value.length;
    } else if (e.type === 'rational') {
      [type, count, value] = [5, e.value.length, Buffer.alloc(8 * e.value.length)];
      e.value.forEach(([n, d], k) => {
        value.writeUInt32BE(n, 8 * k);
        value.writeUInt32BE(d, 8 * k + 4);
      });
    } else {
      [type, count, value] = e.type === 'short' ? [3, 1, Buffer.alloc(4)] : [4, 1, Buffer.alloc(4)];
      if (e.type === 'short') value.writeUInt16BE(e.value, 0);
      else value.writeUInt32BE(e.value, 0);
    }
    table.writeUInt16BE(e.tag, o);
    table.writeUInt16BE(type, o + 2);
    table.writeUInt32BE(count, o + 4);
    if (value.length <= 4) value.copy(table, o + 8);
    else {
      table.writeUInt32BE(dataAt, o + 8);
      const padded = value.length & 1 ? Buffer.concat([value, Buffer.alloc(1)]) : value;
      data.push(padded);
      dataAt += padded.length;
    }
  });
  table.writeUInt32BE(next, table.length - 4);
  return Buffer.concat([table, ...data]);
}

/** EXIF as a phone writes it: camera, orientation, and where the photo was taken (GPS). */
export function phoneExif(orientation: number): Buffer {
  return exifTiff(
    [
      { tag: 0x010f, type: 'ascii', value: `${METADATA_MARKER} maker` },
      { tag: 0x0110, type: 'ascii', value: 'Phone 15' },
      { tag: 0x0112, type: 'short', value: orientation },
    ],
    [
      { tag: 0x0001, type: 'ascii', value: 'N' },
      {
        tag: 0x0002,
        type: 'rational',
        value: [
          [48, 1],
          [51, 1],
          [2964, 100],
        ],
      },
      { tag: 0x0003, type: 'ascii', value: 'E' },
      {
        tag: 0x0004,
        type: 'rational',
        value: [
          [2, 1],
          [17, 1],
          [4000, 100],
        ],
      },
      { tag: 0x0012, type: 'ascii', value: `${METADATA_MARKER} gps` },
    ],
  );
}

const XMP_PACKET = Buffer.from(
  `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.494N" exif:GPSLongitude="2,17.667E" ` +
    `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description>${METADATA_MARKER} xmp</dc:description></rdf:Description>` +
    `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`,
  'utf8',
);

export function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

export function riffChunk(fourcc: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(fourcc, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, Buffer.alloc(data.length & 1)]);
}

/** Where the red square of a `photoWithMetadata` is in the stored pixels: its top-left corner. */
export const PHOTO_SQUARE = 64;

export interface PhotoWithMetadataOptions {
  /** Of the stored pixels, before the orientation. */
  width: number;
  height: number;
  /** The EXIF orientation (1 to 8). */
  orientation?: number;
  /** WebP only: a lossless bitstream. */
  lossless?: boolean;
}

/**
 * A photo with all the metadata a camera, a phone or an editor leaves in it, each block quoting
 * METADATA_MARKER: EXIF with GPS and the orientation, XMP (with GPS too) and a P3 ICC profile;
 * for JPEG also IPTC (APP13), a comment, a JFIF thumbnail, an MPF segment and a second image
 * after EOI (as MPF and gain maps append them, with EXIF of their own); for PNG tEXt, zTXt, iTXt
 * and tIME chunks. The stored pixels are blue with a red square in their top-left corner.
 */
export async function photoWithMetadata(kind: 'jpeg' | 'png' | 'webp', opts: PhotoWithMetadataOptions): Promise<Buffer> {
  const { width, height, orientation = 1 } = opts;
  const pixels = sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 200 } } })
    .composite([
      {
        input: { create: { width: PHOTO_SQUARE, height: PHOTO_SQUARE, channels: 3, background: { r: 230, g: 20, b: 20 } } },
        left: 0,
        top: 0,
      },
    ])
    .withIccProfile('p3');
  const exif = phoneExif(orientation);
  const withPrefix = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exif]);
  const xmpApp1 = Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), XMP_PACKET]);
  switch (kind) {
    case 'jpeg': {
      const jpeg = await pixels.jpeg({ quality: 90 }).toBuffer();
      const jfif = Buffer.concat([Buffer.from('JFIF\0', 'latin1'), Buffer.from([1, 1, 1, 0, 72, 0, 72, 1, 1]), Buffer.from([200, 10, 10])]);
      const iptcCity = Buffer.from(`${METADATA_MARKER} city`, 'latin1');
      const iptc = Buffer.concat([Buffer.from([0x1c, 0x02, 0x5a, 0, iptcCity.length]), iptcCity]);
      const resource = Buffer.concat([Buffer.from('8BIM', 'latin1'), Buffer.from([0x04, 0x04, 0, 0, 0, 0, 0, iptc.length]), iptc]);
      const secondImage = Buffer.concat([
        Buffer.from([0xff, 0xd8]),
        jpegSegment(0xe1, withPrefix),
        (
          await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
            .jpeg()
            .toBuffer()
        ).subarray(2),
      ]);
      return Buffer.concat([
        jpeg.subarray(0, 2),
        jpegSegment(0xe0, jfif),
        jpegSegment(0xe1, withPrefix),
        jpegSegment(0xe1, xmpApp1),
        jpegSegment(0xe2, Buffer.from('MPF\0MM\0*\0\0\0\x08', 'latin1')),
        jpegSegment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource, Buffer.alloc(resource.length & 1)])),
        jpegSegment(0xfe, Buffer.from(`${METADATA_MARKER} comment`, 'latin1')),
        jpeg.subarray(2),
        secondImage,
      ]);
    }
    case 'png': {
      const png = await pixels.png().toBuffer();
      const ihdrEnd = 8 + 12 + 13;
      const idat = png.indexOf(Buffer.from('IDAT', 'latin1')) - 4;
      const itxt = Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), XMP_PACKET]);
      return Buffer.concat([
        png.subarray(0, ihdrEnd),
        pngChunk('eXIf', exif),
        pngChunk('tEXt', Buffer.from(`Comment\0${METADATA_MARKER} text`, 'latin1')),
        pngChunk('zTXt', Buffer.concat([Buffer.from('Author\0\0', 'latin1'), deflateSync(Buffer.from(`${METADATA_MARKER} author`))])),
        pngChunk('tIME', Buffer.from([0x07, 0xea, 11, 27, 9, 41, 0])),
        png.subarray(ihdrEnd, idat),
        pngChunk('iTXt', itxt),
        png.subarray(idat),
      ]);
    }
    case 'webp': {
      const webp = await pixels.webp(opts.lossless ? { lossless: true } : { quality: 90 }).toBuffer();
      const out = Buffer.concat([webp, riffChunk('EXIF', withPrefix), riffChunk('XMP ', XMP_PACKET)]);
      // VP8X (sharp writes one with the ICC profile): EXIF and XMP present.
      if (out.toString('latin1', 12, 16) !== 'VP8X') throw new Error('expected an extended WebP');
      out[20] |= 0x08 | 0x04;
      out.writeUInt32LE(out.length - 8, 4);
      return out;
    }
  }
}
