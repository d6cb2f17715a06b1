import fc from 'fast-check';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { stripJpegMetadata, withIccProfileOf } from './jpeg-metadata';
import { stripPngMetadata } from './png-metadata';
import { StripOptions, StripResult } from './strip-result';
import { stripWebpMetadata, webpBitstream } from './webp-metadata';

// Inputs are built here byte by byte around small images from sharp, which also decodes the
// results: a stripper must remove exactly the metadata and leave the pixels as they were.

const latin1 = (s: string) => Buffer.from(s, 'latin1');

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** Inserts segments right after SOI. */
const afterSoi = (jpeg: Buffer, ...segments: Buffer[]) => Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);

/** The markers of a JPEG up to its first SOS, as `APPn`/`0xNN` names (a simple walk, for assertions). */
function jpegHeaderMarkers(jpeg: Buffer): string[] {
  const out: string[] = [];
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff && jpeg[p + 1] !== 0xda) {
    const m = jpeg[p + 1];
    out.push(m >= 0xe0 && m <= 0xef ? `APP${m - 0xe0}` : m === 0xfe ? 'COM' : `0x${m.toString(16)}`);
    p += 2 + jpeg.readUInt16BE(p + 2);
  }
  return out;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

function pngChunkTypes(png: Buffer): string[] {
  const out: string[] = [];
  for (let p = 8; p + 12 <= png.length; p += 12 + png.readUInt32BE(p)) out.push(png.toString('latin1', p + 4, p + 8));
  return out;
}

/** Inserts chunks before IEND. */
const beforeIend = (png: Buffer, ...chunks: Buffer[]) =>
  Buffer.concat([png.subarray(0, png.length - 12), ...chunks, png.subarray(png.length - 12)]);

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(fourcc, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function riffChunks(webp: Buffer): string[] {
  const out: string[] = [];
  for (let p = 12; p + 8 <= webp.length;) {
    const size = webp.readUInt32LE(p + 4);
    out.push(webp.toString('latin1', p, p + 4));
    p += 8 + size + (size & 1);
  }
  return out;
}

/** Appends chunks to a WebP and fixes its RIFF size. */
function withChunks(webp: Buffer, ...chunks: Buffer[]): Buffer {
  const out = Buffer.concat([webp, ...chunks]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

const ok = (r: StripResult) => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r;
};

const pixels = async (bytes: Buffer) => sharp(bytes).raw().toBuffer();

/** Stripping a copy of `input` in place gives the same bytes as `expected`, in that copy's own memory. */
function expectSameInPlace(strip: (b: Buffer, o?: StripOptions) => StripResult, input: Buffer, expected: Buffer): void {
  const spent = Buffer.from(input);
  const result = ok(strip(spent, { inPlace: true }));
  expect(result.bytes).toEqual(expected);
  expect(result.bytes.buffer).toBe(spent.buffer);
  expect(result.bytes.byteOffset).toBe(spent.byteOffset);
}

const squares = () =>
  sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 30, g: 140, b: 220 } } }).composite([
    { input: { create: { width: 16, height: 16, channels: 3, background: { r: 240, g: 20, b: 20 } } }, left: 0, top: 0 },
  ]);

const EXIF = Buffer.concat([latin1('Exif\0\0'), latin1('MM\0*'), Buffer.from([0, 0, 0, 8, 0, 0, 0, 0, 0, 0])]);
const XMP = latin1('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/">SECRET-XMP</x:xmpmeta>');
const IPTC = Buffer.concat([latin1('Photoshop 3.0\0'), latin1('8BIM'), Buffer.from([0x04, 0x04, 0, 0, 0, 0, 0, 4]), latin1('CITY')]);

describe(stripJpegMetadata.name, () => {
  let plain: Buffer;
  let withIcc: Buffer;
  beforeAll(async () => {
    plain = await squares().jpeg({ quality: 90 }).toBuffer();
    withIcc = await squares().jpeg({ quality: 90 }).withIccProfile('p3').toBuffer();
  });

  it('gives back the same Buffer when there is nothing to remove', () => {
    const result = ok(stripJpegMetadata(plain));
    expect(result.bytes).toBe(plain);
    expect(result.removed).toEqual([]);
  });

  it('removes EXIF, XMP, MPF, IPTC, JUMBF, comments, a JFIF thumbnail and trailing images; keeps ICC and Adobe', async () => {
    const jfif = Buffer.concat([latin1('JFIF\0'), Buffer.from([1, 2, 0, 0, 72, 0, 72, 2, 1]), Buffer.alloc(6, 0x55)]);
    const adobe = Buffer.concat([latin1('Adobe'), Buffer.from([0, 100, 0, 0, 0, 0, 1])]);
    const input = Buffer.concat([
      afterSoi(
        withIcc,
        segment(0xe0, jfif),
        segment(0xe1, EXIF),
        segment(0xe1, XMP),
        segment(0xe2, latin1('MPF\0MM\0*')),
        segment(0xeb, latin1('JP\0\0jumb')),
        segment(0xed, IPTC),
        segment(0xee, adobe),
        segment(0xfe, latin1('SECRET-COMMENT')),
      ),
      latin1('\xff\xd8\xff\xe1 a secondary image with its own EXIF'),
    ]);
    const result = ok(stripJpegMetadata(input));
    expect(result.removed).toEqual(['JFIF thumbnail', 'APP1', 'APP1', 'APP2', 'APP11', 'APP13', 'COM', 'data after EOI']);
    expect(jpegHeaderMarkers(result.bytes).filter((m) => m.startsWith('APP') || m === 'COM')).toEqual(['APP0', 'APP14', 'APP2']);
    const text = result.bytes.toString('latin1');
    for (const secret of ['Exif\0\0', 'http://ns.adobe.com/xap', 'Photoshop 3.0', 'SECRET', 'MPF\0', 'jumb', 'secondary'])
      expect(text).not.toContain(secret);
    // The JFIF segment lost its thumbnail (length 16, 0×0), the rest is the input's own bytes.
    expect(result.bytes.subarray(2, 20)).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xe0, 0, 16]), jfif.subarray(0, 12), Buffer.from([0, 0])]),
    );
    expect(result.bytes.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expectSameInPlace(stripJpegMetadata, input, result.bytes);
    const meta = await sharp(result.bytes).metadata();
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined]);
    expect(meta.icc).toEqual((await sharp(withIcc).metadata()).icc);
    expect(await pixels(result.bytes)).toEqual(await pixels(withIcc));
  });

  it('walks every scan of a progressive JPEG, removing a comment between scans', async () => {
    const progressive = await squares().jpeg({ quality: 90, progressive: true }).toBuffer();
    expect(stripJpegMetadata(progressive)).toEqual({ ok: true, bytes: progressive, removed: [] });
    const secondScan = progressive.indexOf(Buffer.from([0xff, 0xda]), progressive.indexOf(Buffer.from([0xff, 0xda])) + 2);
    const input = Buffer.concat([
      progressive.subarray(0, secondScan),
      segment(0xfe, latin1('between scans')),
      progressive.subarray(secondScan),
    ]);
    const result = ok(stripJpegMetadata(input));
    expect(result.removed).toEqual(['COM']);
    expect(result.bytes).toEqual(progressive);
  });

  it('keeps stuffed bytes, restart markers and fill bytes of a scan; skips stray bytes between segments', () => {
    const sos = segment(0xda, Buffer.from([1, 1, 0, 0, 63, 0]));
    const scan = Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56, 0xff, 0xff]);
    const input = Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      latin1('junk'),
      Buffer.from([0xff, 0xff]),
      segment(0xdb, Buffer.alloc(65, 1)),
      sos,
      scan,
      segment(0xfe, latin1('c')),
      Buffer.from([0xff, 0xd9]),
    ]);
    const result = ok(stripJpegMetadata(input));
    expect(result.removed).toEqual(['stray bytes', 'COM']);
    expect(result.bytes).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xdb, Buffer.alloc(65, 1)), sos, scan, Buffer.from([0xff, 0xd9])]),
    );
  });

  it('keeps a file cut short inside its image data as it is, for the decoder to judge', () => {
    const sos = plain.indexOf(Buffer.from([0xff, 0xda]));
    const cut = plain.subarray(0, sos + 2 + plain.readUInt16BE(sos + 2) + 5);
    expect(stripJpegMetadata(cut)).toEqual({ ok: true, bytes: cut, removed: [] });
  });

  describe('refuses what it cannot walk', () => {
    it.each([
      ['an empty file', () => Buffer.alloc(0)],
      ['no SOI', () => Buffer.from([0xff, 0xd9, 0xff, 0xd9])],
      [
        'a segment length past the end',
        () => Buffer.concat([plain.subarray(0, 2), Buffer.from([0xff, 0xe1, 0x40, 0x00]), latin1('Exif\0\0')]),
      ],
      ['a length cut off', () => Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0x40])],
      ['a length under 2', () => Buffer.concat([plain.subarray(0, 2), Buffer.from([0xff, 0xfe, 0x00, 0x01]), plain.subarray(2)])],
      ['an unknown marker', () => afterSoi(plain, segment(0xf3, Buffer.alloc(4)))],
      ['the JPG marker', () => afterSoi(plain, segment(0xc8, Buffer.alloc(4)))],
      ['a second SOI', () => afterSoi(plain, Buffer.from([0xff, 0xd8]))],
      ['headers that end before any scan', () => plain.subarray(0, plain.indexOf(Buffer.from([0xff, 0xda])))],
      ['headers only, EXIF included, cut inside a segment', () => afterSoi(plain, segment(0xe1, EXIF)).subarray(0, 12)],
    ])('%s', (_name, input) => {
      const result = stripJpegMetadata(input());
      expect(result).toEqual({ ok: false, reason: expect.any(String) });
    });
  });
});

describe(withIccProfileOf.name, () => {
  it("puts the source's ICC segments in place of the JPEG's own, or none", async () => {
    const p3 = await squares().jpeg().withIccProfile('p3').toBuffer();
    const srgb = await squares().jpeg().withIccProfile('srgb').toBuffer();
    const none = await squares().jpeg().toBuffer();
    const source = afterSoi(p3, segment(0xe1, EXIF), Buffer.from([0xff, 0xff]), segment(0xfe, latin1('c')));
    const iccOf = async (b: Buffer) => (await sharp(b).metadata()).icc;
    expect(await iccOf(withIccProfileOf(srgb, source)!)).toEqual(await iccOf(p3));
    expect(await iccOf(withIccProfileOf(none, source)!)).toEqual(await iccOf(p3));
    expect(await iccOf(withIccProfileOf(srgb, none)!)).toBeUndefined();
    // The image data is untouched: only the profile's segments came in after SOI.
    const tagged = withIccProfileOf(none, source)!;
    expect(tagged.subarray(tagged.length - (none.length - 2))).toEqual(none.subarray(2));
    expect(withIccProfileOf(srgb, source.subarray(0, 30))).toBeNull();
  });
});

describe(stripPngMetadata.name, () => {
  let plain: Buffer;
  let tagged: Buffer;
  beforeAll(async () => {
    plain = await squares().png().toBuffer();
    tagged = await squares()
      .png()
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'SECRET-EXIF' } })
      .toBuffer();
  });

  it('gives back the same Buffer when there is nothing to remove', () => {
    const result = ok(stripPngMetadata(plain));
    expect(result.bytes).toBe(plain);
    expect(result.removed).toEqual([]);
  });

  it('removes eXIf, text, time, C2PA and vendor chunks and data after IEND; keeps iCCP, colour and critical chunks', async () => {
    expect(pngChunkTypes(tagged)).toContain('eXIf');
    const input = Buffer.concat([
      beforeIend(
        tagged,
        pngChunk('tEXt', latin1('Comment\0SECRET-TEXT')),
        pngChunk('zTXt', latin1('Author\0\0x')),
        pngChunk('iTXt', Buffer.concat([latin1('XML:com.adobe.xmp\0\0\0\0\0'), XMP])),
        pngChunk('tIME', Buffer.from([7, 234, 11, 27, 12, 0, 0])),
        pngChunk('caBX', latin1('jumb')),
        pngChunk('iDOT', Buffer.alloc(28)),
        pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
      ),
      latin1('trailing SECRET'),
    ]);
    const result = ok(stripPngMetadata(input));
    expect(result.removed).toEqual(['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'caBX', 'iDOT', 'data after IEND']);
    expectSameInPlace(stripPngMetadata, input, result.bytes);
    expect(pngChunkTypes(result.bytes)).toEqual(
      pngChunkTypes(tagged)
        .filter((t) => t !== 'eXIf')
        .flatMap((t) => (t === 'IEND' ? ['gAMA', 'IEND'] : [t])),
    );
    const text = result.bytes.toString('latin1');
    for (const secret of ['SECRET', 'http://ns.adobe.com/xap', 'eXIf', 'tEXt', 'iTXt']) expect(text).not.toContain(secret);
    const meta = await sharp(result.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.comments).toBeUndefined();
    expect(meta.icc).toEqual((await sharp(tagged).metadata()).icc);
    expect(await pixels(result.bytes)).toEqual(await pixels(tagged));
  });

  it('keeps a file that ends between chunks before IEND, for the decoder to judge', () => {
    const cut = plain.subarray(0, plain.length - 12);
    expect(stripPngMetadata(cut)).toEqual({ ok: true, bytes: cut, removed: [] });
  });

  describe('refuses what it cannot walk', () => {
    const lengthAt = (png: Buffer, at: number, length: number) => {
      const out = Buffer.from(png);
      out.writeUInt32BE(length, at);
      return out;
    };
    it.each([
      ['an empty file', () => Buffer.alloc(0)],
      ['no signature', () => Buffer.concat([latin1('\x89PNX\r\n\x1a\n'), plain.subarray(8)])],
      ['a chunk length past the end', () => lengthAt(beforeIend(plain, pngChunk('tEXt', latin1('a\0b'))), plain.length - 12, 1 << 20)],
      ['a chunk length over 2^31 - 1', () => lengthAt(plain, 8, 0x80000000)],
      ['a chunk header cut off', () => Buffer.concat([plain.subarray(0, plain.length - 12), Buffer.from([0, 0, 0, 0, 0x49])])],
      ['a malformed chunk type', () => beforeIend(plain, pngChunk('t3Xt', latin1('x')))],
      ['a chunk cut short', () => plain.subarray(0, plain.indexOf(latin1('IDAT')) + 10)],
    ])('%s', (_name, input) => {
      expect(stripPngMetadata(input())).toEqual({ ok: false, reason: expect.any(String) });
    });
  });
});

describe(stripWebpMetadata.name, () => {
  let plain: Buffer;
  let tagged: Buffer;
  beforeAll(async () => {
    plain = await squares().webp({ quality: 90 }).toBuffer();
    tagged = await squares()
      .webp({ quality: 90 })
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'SECRET-EXIF' } })
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/">SECRET-XMP</x:xmpmeta>')
      .toBuffer();
  });

  it('gives back the same Buffer when there is nothing to remove', () => {
    const result = ok(stripWebpMetadata(plain));
    expect(result.bytes).toBe(plain);
    expect(result.removed).toEqual([]);
  });

  it('removes EXIF, XMP and unknown chunks, clears their VP8X flags, rewrites the RIFF size; keeps ICCP', async () => {
    expect(riffChunks(tagged)).toEqual(['VP8X', 'ICCP', 'VP8 ', 'EXIF', 'XMP ']);
    expect(tagged[20] & 0x0c).toBe(0x0c);
    const input = Buffer.concat([withChunks(tagged, riffChunk('ZZZZ', latin1('odd'))), latin1('after RIFF SECRET')]);
    const result = ok(stripWebpMetadata(input));
    expect(result.removed).toEqual(['data after RIFF', 'VP8X metadata flags', 'EXIF', 'XMP', 'ZZZZ']);
    expect(riffChunks(result.bytes)).toEqual(['VP8X', 'ICCP', 'VP8 ']);
    expect(result.bytes.readUInt32LE(4)).toBe(result.bytes.length - 8);
    expectSameInPlace(stripWebpMetadata, input, result.bytes);
    expect(result.bytes[20]).toBe(tagged[20] & ~0x0c);
    expect(result.bytes.toString('latin1')).not.toContain('SECRET');
    const meta = await sharp(result.bytes).metadata();
    expect([meta.exif, meta.xmp]).toEqual([undefined, undefined]);
    expect(meta.icc).toEqual((await sharp(tagged).metadata()).icc);
    expect(await pixels(result.bytes)).toEqual(await pixels(tagged));
  });

  it('removes unknown chunks inside animation frames, and keeps every frame', async () => {
    const frames = await Promise.all(
      [
        [200, 30, 30],
        [30, 200, 30],
      ].map(([r, g, b]) =>
        sharp({ create: { width: 16, height: 16, channels: 3, background: { r, g, b } } })
          .png()
          .toBuffer(),
      ),
    );
    const animated = await sharp(frames, { join: { animated: true } })
      .webp({ lossless: true })
      .withExif({ IFD0: { Copyright: 'SECRET' } })
      .toBuffer();
    const firstFrame = animated.indexOf(latin1('ANMF'));
    const frameSize = animated.readUInt32LE(firstFrame + 4);
    const extra = riffChunk('ZZZZ', latin1('SECRET in a frame'));
    const frame = Buffer.concat([animated.subarray(firstFrame, firstFrame + 8 + frameSize), extra]);
    frame.writeUInt32LE(frameSize + extra.length, 4);
    const input = Buffer.concat([animated.subarray(0, firstFrame), frame, animated.subarray(firstFrame + 8 + frameSize)]);
    input.writeUInt32LE(input.length - 8, 4);
    const result = ok(stripWebpMetadata(input));
    expect(result.removed).toEqual(['VP8X metadata flags', 'ANMF ZZZZ', 'EXIF']);
    expectSameInPlace(stripWebpMetadata, input, result.bytes);
    expect(result.bytes.toString('latin1')).not.toContain('SECRET');
    const meta = await sharp(result.bytes).metadata();
    expect([meta.pages, meta.exif]).toEqual([2, undefined]);
    expect(await sharp(result.bytes, { pages: -1 }).raw().toBuffer()).toEqual(await sharp(animated, { pages: -1 }).raw().toBuffer());
    expect(webpBitstream(result.bytes)).toBe('lossless');
  });

  it('tells a lossless WebP from a lossy one', async () => {
    expect(webpBitstream(plain)).toBe('lossy');
    expect(webpBitstream(tagged)).toBe('lossy');
    expect(webpBitstream(await squares().webp({ lossless: true }).toBuffer())).toBe('lossless');
    expect(webpBitstream(Buffer.from('RIFF\x04\0\0\0WEBP', 'latin1'))).toBeNull();
  });

  describe('refuses what it cannot walk', () => {
    it.each([
      ['an empty file', () => Buffer.alloc(0)],
      ['no RIFF header', () => Buffer.concat([latin1('RIFX'), plain.subarray(4)])],
      ['a RIFF size past the end', () => plain.subarray(0, plain.length - 10)],
      [
        'a chunk size past the RIFF end',
        () => {
          const out = withChunks(tagged);
          out.writeUInt32LE(1 << 20, 12 + 4);
          return out;
        },
      ],
      ['a RIFF size under 4', () => Buffer.concat([latin1('RIFF'), Buffer.from([2, 0, 0, 0]), latin1('WEBP')])],
      ['a chunk header cut off', () => withChunks(plain, latin1('EXI'))],
    ])('%s', (_name, input) => {
      expect(stripWebpMetadata(input())).toEqual({ ok: false, reason: expect.any(String) });
    });
  });
});

/**
 * Fuzzing: damaged versions of images full of metadata (cut anywhere, bytes overwritten, bytes
 * inserted) never make a stripper throw, and whatever it accepts it strips for good: stripping
 * its output again removes nothing, and nothing grows.
 */
describe('metadata strippers, fuzzed', () => {
  const SEEDS = [1, 42, 20261127, 987654321];
  const inputs: Record<string, { strip: (b: Buffer, o?: StripOptions) => StripResult; bytes: Buffer }> = {};

  beforeAll(async () => {
    const jpeg = await squares().jpeg({ quality: 80 }).withIccProfile('p3').toBuffer();
    inputs.jpeg = {
      strip: stripJpegMetadata,
      bytes: Buffer.concat([
        afterSoi(jpeg, segment(0xe1, EXIF), segment(0xe1, XMP), segment(0xed, IPTC), segment(0xfe, latin1('c'))),
        latin1('tail'),
      ]),
    };
    const png = await squares()
      .png()
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'x' } })
      .toBuffer();
    inputs.png = { strip: stripPngMetadata, bytes: beforeIend(png, pngChunk('tEXt', latin1('a\0b')), pngChunk('tIME', Buffer.alloc(7))) };
    const webp = await squares()
      .webp()
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'x' } })
      .withXmp('<x/>')
      .toBuffer();
    inputs.webp = { strip: stripWebpMetadata, bytes: withChunks(webp, riffChunk('ZZZZ', latin1('abc'))) };
  });

  const damage = fc.record({
    cutAt: fc.option(fc.nat(), { nil: undefined }),
    overwrite: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
    insert: fc.option(fc.tuple(fc.nat(), fc.uint8Array({ maxLength: 24 })), { nil: undefined }),
  });

  type Damage = { cutAt: number | undefined; overwrite: [number, number][]; insert: [number, Uint8Array] | undefined };

  function damaged(bytes: Buffer, d: Damage): Buffer {
    let out = Buffer.from(bytes);
    for (const [at, value] of d.overwrite) out[at % out.length] = value;
    if (d.insert) {
      const at = d.insert[0] % (out.length + 1);
      out = Buffer.concat([out.subarray(0, at), Buffer.from(d.insert[1]), out.subarray(at)]);
    }
    if (d.cutAt !== undefined) out = out.subarray(0, d.cutAt % (out.length + 1));
    return out;
  }

  function expectStrippedForGood(strip: (b: Buffer, o?: StripOptions) => StripResult, input: Buffer): void {
    let first: StripResult;
    let inPlace: StripResult;
    const spent = Buffer.from(input);
    try {
      first = strip(input);
      inPlace = strip(spent, { inPlace: true });
    } catch (e) {
      throw new Error(`threw on ${input.toString('base64')}: ${(e as Error).message}`);
    }
    // Made in the input's memory, the result is the same bytes.
    expect(inPlace).toEqual(first);
    if (!first.ok) return;
    expect(first.bytes.length).toBeLessThanOrEqual(input.length);
    const again = strip(first.bytes);
    expect(again).toEqual({ ok: true, bytes: first.bytes, removed: [] });
  }

  describe.each(['jpeg', 'png', 'webp'])('%s', (format) => {
    it.each(SEEDS)('damaged images, seed %d', (seed) => {
      const { strip, bytes } = inputs[format];
      expectStrippedForGood(strip, bytes);
      fc.assert(
        fc.property(damage, (d) => expectStrippedForGood(strip, damaged(bytes, d))),
        { numRuns: 300, seed },
      );
    });

    it.each(SEEDS)('random bytes after the signature, seed %d', (seed) => {
      const { strip, bytes } = inputs[format];
      const head = bytes.subarray(0, format === 'webp' ? 12 : format === 'png' ? 8 : 2);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 512 }), (tail) => {
          const input = Buffer.concat([head, Buffer.from(tail)]);
          if (format === 'webp') input.writeUInt32LE(input.length - 8, 4);
          expectStrippedForGood(strip, input);
        }),
        { numRuns: 300, seed },
      );
    });
  });
});
