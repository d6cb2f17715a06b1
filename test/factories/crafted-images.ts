import { deflateSync, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { jpegSegment, phoneExif, pngChunk, riffChunk } from './images';

/**
 * Files crafted to smuggle bytes past the metadata walkers, or to break them (issue 34): text
 * where a decoder never reads it (a DNL segment, an Adobe segment's padding, after a scan's data,
 * in IDAT after the image data, VP8X's padding), an unknown critical PNG chunk after the image
 * data, a JPEG without its end-of-image marker, and animation frames nested 100 000 deep. Each
 * says what an upload of it must get: 201 with none of CRAFTED_MARKER stored, or 422
 * image_corrupt. Built in code, never committed.
 */

/** Text planted in every crafted file: none of it may reach a stored copy. */
export const CRAFTED_MARKER = 'SECRET-CRAFTED';

export interface CraftedImage {
  name: string;
  kind: 'jpeg' | 'png' | 'webp';
  bytes: Buffer;
  /** 201: accepted, stored without the planted text; 422: refused as image_corrupt. */
  expect: 201 | 422;
}

const text = (what: string) => Buffer.from(` ${CRAFTED_MARKER} ${what} `, 'latin1');

/** Where a JPEG's scans' entropy-coded data ends, for files written without stray bytes: the index of each marker after one. */
export function jpegScanEnds(jpeg: Buffer): number[] {
  const ends: number[] = [];
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff) {
    const marker = jpeg[p + 1];
    if (marker === 0xd9) break;
    p += 2 + jpeg.readUInt16BE(p + 2);
    if (marker !== 0xda) continue;
    // The data runs to the first marker that is neither a stuffed 0xFF00 nor a restart marker.
    for (;;) {
      p = jpeg.indexOf(0xff, p);
      const next = jpeg[p + 1];
      if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) p += 2;
      else break;
    }
    ends.push(p);
  }
  return ends;
}

/** `bytes` with `insert` put at `at`. */
export const insertAt = (bytes: Buffer, at: number, ...insert: Buffer[]) =>
  Buffer.concat([bytes.subarray(0, at), ...insert, bytes.subarray(at)]);

/** A small noisy image (so its scans have real data), as sharp writes it. */
function pixels(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 30 } } });
}

/** A WebP of one animation frame (a lossless 16×16 image) followed by `depth` ANMF chunks nested in each other, with EXIF orientation 6. */
export async function nestedAnimationWebp(depth: number): Promise<Buffer> {
  const simple = await pixels(16, 16).webp({ lossless: true }).toBuffer();
  // The chunk whole, with its pad byte when its size is odd: the frame's next sub-chunk starts even.
  const size = simple.readUInt32LE(16);
  const bitstream = simple.subarray(12, 12 + 8 + size + (size & 1));
  // Built from the outside in, in one buffer: each level a chunk header and a frame header.
  const nest = Buffer.alloc(24 * depth);
  for (let i = 0; i < depth; i++) {
    nest.write('ANMF', 24 * i, 'latin1');
    nest.writeUInt32LE(16 + 24 * (depth - 1 - i), 24 * i + 4);
    nest.writeUIntLE(15, 24 * i + 8 + 6, 3);
    nest.writeUIntLE(15, 24 * i + 8 + 9, 3);
  }
  const frameHeader = Buffer.alloc(16);
  frameHeader.writeUIntLE(15, 6, 3);
  frameHeader.writeUIntLE(15, 9, 3);
  frameHeader.writeUIntLE(100, 12, 3);
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x02 | 0x08; // animation, EXIF
  vp8x.writeUIntLE(15, 4, 3);
  vp8x.writeUIntLE(15, 7, 3);
  const body = Buffer.concat([
    Buffer.from('WEBP', 'latin1'),
    riffChunk('VP8X', vp8x),
    riffChunk('ANIM', Buffer.alloc(6)),
    riffChunk('ANMF', Buffer.concat([frameHeader, bitstream, nest])),
    riffChunk('EXIF', Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), phoneExif(6)])),
  ]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** Every crafted shape, of `width`×`height` pixels (the nested WebP is 16×16 whatever they are). */
export async function craftedImages(width = 64, height = 36): Promise<CraftedImage[]> {
  const jpeg = await pixels(width, height).jpeg({ quality: 90 }).toBuffer();
  const progressive = await pixels(width, height).jpeg({ quality: 90, progressive: true }).toBuffer();
  const [scanEnd] = jpegScanEnds(jpeg);
  const png = await pixels(width, height).png().toBuffer();
  const idat = png.indexOf(Buffer.from('IDAT', 'latin1')) - 4;
  const idatEnd = idat + 12 + png.readUInt32BE(idat);
  const imageData = png.subarray(idat + 8, idatEnd - 4);
  const webp = await pixels(width, height).webp({ quality: 90 }).withIccProfile('srgb').toBuffer();
  const vp8x = webp.indexOf(Buffer.from('VP8X', 'latin1'));
  const paddedVp8x = riffChunk('VP8X', Buffer.concat([webp.subarray(vp8x + 8, vp8x + 18), text('VP8X padding')]));
  const withPaddedVp8x = Buffer.concat([webp.subarray(0, vp8x), paddedVp8x, webp.subarray(vp8x + 18)]);
  withPaddedVp8x.writeUInt32LE(withPaddedVp8x.length - 8, 4);
  const adobe = Buffer.concat([Buffer.from('Adobe', 'latin1'), Buffer.from([0, 100, 0, 0, 0, 0, 1]), text('Adobe padding')]);
  return [
    {
      name: 'a JPEG with text in a DNL segment',
      kind: 'jpeg',
      bytes: insertAt(jpeg, scanEnd, jpegSegment(0xdc, Buffer.concat([Buffer.from([0, height]), text('DNL')]))),
      expect: 201,
    },
    { name: 'a JPEG with text padding its Adobe segment', kind: 'jpeg', bytes: insertAt(jpeg, 2, jpegSegment(0xee, adobe)), expect: 201 },
    { name: 'a JPEG with text after its scan', kind: 'jpeg', bytes: insertAt(jpeg, scanEnd, text('after the scan')), expect: 201 },
    {
      name: 'a progressive JPEG with text between its scans',
      kind: 'jpeg',
      bytes: insertAt(progressive, jpegScanEnds(progressive)[1], text('between scans')),
      expect: 201,
    },
    {
      name: 'a JPEG without EOI, text after its scan',
      kind: 'jpeg',
      bytes: Buffer.concat([jpeg.subarray(0, scanEnd), text('after the scan, no EOI')]),
      expect: 422,
    },
    {
      name: 'a PNG with an unknown critical chunk after IDAT',
      kind: 'png',
      bytes: insertAt(png, idatEnd, pngChunk('CRIT', text('critical chunk'))),
      expect: 422,
    },
    {
      name: 'a PNG with text in IDAT after the image data',
      kind: 'png',
      bytes: Buffer.concat([
        png.subarray(0, idat),
        pngChunk('IDAT', Buffer.concat([imageData, text('after the zlib stream')])),
        png.subarray(idatEnd),
      ]),
      expect: 201,
    },
    {
      name: 'a PNG with an IDAT chunk of text after the image data',
      kind: 'png',
      bytes: insertAt(png, idatEnd, pngChunk('IDAT', text('extra IDAT'))),
      expect: 201,
    },
    {
      name: 'a PNG whose image data inflates to more than the image',
      kind: 'png',
      bytes: Buffer.concat([
        png.subarray(0, idat),
        pngChunk('IDAT', deflateSync(Buffer.concat([inflateSync(imageData), text('inflated')]))),
        png.subarray(idatEnd),
      ]),
      expect: 422,
    },
    { name: 'a WebP with text padding its VP8X chunk', kind: 'webp', bytes: withPaddedVp8x, expect: 201 },
    {
      name: 'an animated WebP of frames nested 100 000 deep, EXIF orientation 6',
      kind: 'webp',
      bytes: await nestedAnimationWebp(100_000),
      expect: 201,
    },
  ];
}
