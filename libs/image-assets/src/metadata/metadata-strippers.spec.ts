import fc from 'fast-check';
import { crc32, deflateSync, inflateSync } from 'node:zlib';
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

/** The first IDAT chunk: where it starts and ends. */
function idatRange(png: Buffer): [number, number] {
  const at = png.indexOf(latin1('IDAT')) - 4;
  return [at, at + 12 + png.readUInt32BE(at)];
}

/** Inserts chunks before the first IDAT. */
const beforeIdat = (png: Buffer, ...chunks: Buffer[]) => {
  const [at] = idatRange(png);
  return Buffer.concat([png.subarray(0, at), ...chunks, png.subarray(at)]);
};

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

/**
 * An animated WebP whose one frame holds a lossless bitstream (unless `withBitstream` is false)
 * and then `depth` ANMF chunks nested in each other: the shape that once overflowed the stack.
 */
async function nestedFrames(depth: number, withBitstream = true): Promise<Buffer> {
  const simple = await squares().webp({ lossless: true }).toBuffer();
  // The chunk whole, with its pad byte when its size is odd: the frame's next sub-chunk starts even.
  const size = simple.readUInt32LE(16);
  const bitstream = simple.subarray(12, 12 + 8 + size + (size & 1));
  const nest = Buffer.alloc(24 * depth);
  for (let i = 0; i < depth; i++) {
    nest.write('ANMF', 24 * i, 'latin1');
    nest.writeUInt32LE(16 + 24 * (depth - 1 - i), 24 * i + 4);
    nest.writeUIntLE(47, 24 * i + 14, 3);
    nest.writeUIntLE(31, 24 * i + 17, 3);
  }
  const frame = Buffer.alloc(16);
  frame.writeUIntLE(47, 6, 3);
  frame.writeUIntLE(31, 9, 3);
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x02;
  vp8x.writeUIntLE(47, 4, 3);
  vp8x.writeUIntLE(31, 7, 3);
  return withChunks(
    Buffer.concat([latin1('RIFF\0\0\0\0WEBP'), riffChunk('VP8X', vp8x), riffChunk('ANIM', Buffer.alloc(6))]),
    riffChunk('ANMF', Buffer.concat([frame, withBitstream ? bitstream : Buffer.alloc(0), nest])),
  );
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

type Stripper = (b: Buffer, o?: StripOptions) => StripResult | Promise<StripResult>;

/** Stripping a copy of `input` in place gives the same bytes as `expected`, in that copy's own memory. */
async function expectSameInPlace(strip: Stripper, input: Buffer, expected: Buffer): Promise<void> {
  const spent = Buffer.from(input);
  const result = ok(await strip(spent, { inPlace: true }));
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

  it('gives back the same Buffer when there is nothing to remove', async () => {
    const result = ok(await stripJpegMetadata(plain));
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
    const result = ok(await stripJpegMetadata(input));
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
    await expectSameInPlace(stripJpegMetadata, input, result.bytes);
    const meta = await sharp(result.bytes).metadata();
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined]);
    expect(meta.icc).toEqual((await sharp(withIcc).metadata()).icc);
    expect(await pixels(result.bytes)).toEqual(await pixels(withIcc));
  });

  it('walks every scan of a progressive JPEG, removing a comment between scans', async () => {
    const progressive = await squares().jpeg({ quality: 90, progressive: true }).toBuffer();
    expect(await stripJpegMetadata(progressive)).toEqual({ ok: true, bytes: progressive, removed: [] });
    const secondScan = progressive.indexOf(Buffer.from([0xff, 0xda]), progressive.indexOf(Buffer.from([0xff, 0xda])) + 2);
    const input = Buffer.concat([
      progressive.subarray(0, secondScan),
      segment(0xfe, latin1('between scans')),
      progressive.subarray(secondScan),
    ]);
    const result = ok(await stripJpegMetadata(input));
    expect(result.removed).toEqual(['COM']);
    expect(result.bytes).toEqual(progressive);
  });

  it("keeps a scan's stuffed bytes and the fill bytes before a marker; skips stray bytes between segments", async () => {
    const noisy = await sharp({
      create: { width: 64, height: 48, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg({ quality: 95 })
      .toBuffer();
    const dqt = noisy.indexOf(Buffer.from([0xff, 0xdb]));
    const sos = noisy.indexOf(Buffer.from([0xff, 0xda]));
    expect(noisy.subarray(sos, -2).includes(Buffer.from([0xff, 0x00]))).toBe(true);
    const withFill = Buffer.concat([noisy.subarray(0, -2), Buffer.from([0xff, 0xff, 0xff]), noisy.subarray(-2)]);
    const input = Buffer.concat([withFill.subarray(0, dqt), latin1('junk'), Buffer.from([0xff, 0xff]), withFill.subarray(dqt)]);
    const result = ok(await stripJpegMetadata(input));
    expect(result.removed).toEqual(['stray bytes']);
    expect(result.bytes).toEqual(withFill);
  });

  it('refuses a file cut short inside its image data (libjpeg would fill the missing blocks with grey)', async () => {
    const sos = plain.indexOf(Buffer.from([0xff, 0xda]));
    const cut = plain.subarray(0, sos + 2 + plain.readUInt16BE(sos + 2) + 5);
    expect(await stripJpegMetadata(cut)).toEqual({ ok: false, reason: 'scan data that ends before its last block' });
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
    ])('%s', async (_name, input) => {
      const result = await stripJpegMetadata(input());
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
  let greyscale: Buffer;
  beforeAll(async () => {
    plain = await squares().png().toBuffer();
    greyscale = await squares().toColourspace('b-w').png().toBuffer();
    tagged = await squares()
      .png()
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'SECRET-EXIF' } })
      .toBuffer();
  });

  it('gives back the same Buffer when there is nothing to remove', async () => {
    const result = ok(await stripPngMetadata(plain));
    expect(result.bytes).toBe(plain);
    expect(result.removed).toEqual([]);
  });

  it('removes eXIf, text, time, C2PA and vendor chunks and data after IEND; keeps iCCP, colour and critical chunks', async () => {
    expect(pngChunkTypes(tagged)).toContain('eXIf');
    const input = Buffer.concat([
      beforeIend(
        beforeIdat(tagged, pngChunk('cLLI', Buffer.alloc(8))),
        pngChunk('tEXt', latin1('Comment\0SECRET-TEXT')),
        pngChunk('zTXt', latin1('Author\0\0x')),
        pngChunk('iTXt', Buffer.concat([latin1('XML:com.adobe.xmp\0\0\0\0\0'), XMP])),
        pngChunk('tIME', Buffer.from([7, 234, 11, 27, 12, 0, 0])),
        pngChunk('caBX', latin1('jumb')),
        pngChunk('iDOT', Buffer.alloc(28)),
        // Colour after the image data: no decoder reads it there.
        pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
      ),
      latin1('trailing SECRET'),
    ]);
    const result = ok(await stripPngMetadata(input));
    expect(result.removed).toEqual(['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'caBX', 'iDOT', 'gAMA', 'data after IEND']);
    await expectSameInPlace(stripPngMetadata, input, result.bytes);
    expect(pngChunkTypes(result.bytes)).toEqual(
      pngChunkTypes(tagged)
        .filter((t) => t !== 'eXIf')
        .flatMap((t) => (t === 'IDAT' ? ['cLLI', 'IDAT'] : [t])),
    );
    const text = result.bytes.toString('latin1');
    for (const secret of ['SECRET', 'http://ns.adobe.com/xap', 'eXIf', 'tEXt', 'iTXt']) expect(text).not.toContain(secret);
    const meta = await sharp(result.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.comments).toBeUndefined();
    expect(meta.icc).toEqual((await sharp(tagged).metadata()).icc);
    expect(await pixels(result.bytes)).toEqual(await pixels(tagged));
  });

  it('keeps a file that ends between chunks after its image data, for the decoder to judge', async () => {
    const cut = plain.subarray(0, plain.length - 12);
    expect(await stripPngMetadata(cut)).toEqual({ ok: true, bytes: cut, removed: [] });
  });

  it('keeps every kind of PNG sharp writes as it is: bit depths, palettes, grey, alpha, interlaced', async () => {
    const rgba = sharp({ create: { width: 33, height: 17, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 0.5 } } });
    const variants = await Promise.all([
      rgba.clone().png().toBuffer(),
      rgba.clone().png({ progressive: true }).toBuffer(),
      rgba.clone().toColourspace('rgb16').png().toBuffer(),
      rgba.clone().png({ palette: true, colours: 2 }).toBuffer(),
      rgba.clone().png({ palette: true, colours: 16, progressive: true }).toBuffer(),
      rgba.clone().toColourspace('b-w').png().toBuffer(),
      rgba.clone().toColourspace('grey16').png({ progressive: true }).toBuffer(),
      rgba.clone().removeAlpha().png({ compressionLevel: 0 }).toBuffer(),
    ]);
    for (const png of variants) expect(await stripPngMetadata(png)).toEqual({ ok: true, bytes: png, removed: [] });
  });

  it('refuses an unknown critical chunk before or after the image data: decoders must, libpng does not after IDAT', async () => {
    const critical = pngChunk('CRIT', latin1('SECRET in a critical chunk'));
    expect(await stripPngMetadata(beforeIend(plain, critical))).toEqual({ ok: false, reason: 'an unknown critical chunk CRIT' });
    expect(await stripPngMetadata(beforeIdat(plain, critical))).toEqual({ ok: false, reason: 'an unknown critical chunk CRIT' });
  });

  it('keeps only the image data: text after its zlib stream, and IDAT chunks after it, go', async () => {
    const [at, end] = idatRange(plain);
    const data = plain.subarray(at + 8, end - 4);
    const input = Buffer.concat([
      plain.subarray(0, at),
      pngChunk('IDAT', Buffer.concat([data, latin1('SECRET after the stream')])),
      pngChunk('IDAT', latin1('SECRET in one more IDAT')),
      pngChunk('IDAT', Buffer.alloc(0)),
      plain.subarray(end),
    ]);
    const result = ok(await stripPngMetadata(input));
    expect(result.removed).toEqual(['data after the image data', 'IDAT after the image data', 'empty IDAT']);
    expect(result.bytes).toEqual(plain);
    await expectSameInPlace(stripPngMetadata, input, plain);
    // Split over several IDAT chunks, the stream is kept as it was written.
    const split = Buffer.concat([
      plain.subarray(0, at),
      pngChunk('IDAT', data.subarray(0, 7)),
      pngChunk('IDAT', data.subarray(7, 20)),
      pngChunk('IDAT', data.subarray(20)),
      plain.subarray(end),
    ]);
    expect(await stripPngMetadata(split)).toEqual({ ok: true, bytes: split, removed: [] });
  });

  it('refuses image data that inflates to more or less than the image, or does not inflate to its end', async () => {
    const [at, end] = idatRange(plain);
    const raw = inflateSync(plain.subarray(at + 8, end - 4));
    const withData = (data: Buffer) => Buffer.concat([plain.subarray(0, at), pngChunk('IDAT', data), plain.subarray(end)]);
    expect(await stripPngMetadata(withData(deflateSync(Buffer.concat([raw, latin1('SECRET')]))))).toEqual({
      ok: false,
      reason: 'image data longer than the image',
    });
    expect(await stripPngMetadata(withData(deflateSync(raw.subarray(1))))).toEqual({
      ok: false,
      reason: 'image data shorter than the image',
    });
    expect(await stripPngMetadata(withData(plain.subarray(at + 8, end - 10)))).toEqual({
      ok: false,
      reason: 'image data that does not inflate to its end',
    });
    // A decompression bomb stops at the image's size.
    expect(await stripPngMetadata(withData(deflateSync(Buffer.alloc(64 << 20))))).toEqual({
      ok: false,
      reason: 'image data longer than the image',
    });
  });

  it('drops the ancillary chunks a decoder ignores: misplaced, of the wrong length, with a bad CRC, repeated, or only suggestions', async () => {
    const badCrc = pngChunk('cHRM', Buffer.alloc(32, 1));
    badCrc[badCrc.length - 1] ^= 0xff;
    const input = beforeIdat(
      plain,
      pngChunk('gAMA', Buffer.concat([Buffer.from([0, 0, 0xb1, 0x8f]), latin1('SECRET')])),
      pngChunk('sRGB', Buffer.from([0])),
      pngChunk('sRGB', Buffer.from([1])),
      badCrc,
      pngChunk('PLTE', latin1('SECRET palette!')),
      pngChunk('hIST', latin1('SECRET')),
      pngChunk('sPLT', latin1('SECRET\0\x08')),
      pngChunk('acTL', Buffer.alloc(8)),
      pngChunk('tRNS', Buffer.alloc(2)),
    );
    const result = ok(await stripPngMetadata(input));
    expect(result.removed).toEqual(['gAMA', 'sRGB', 'cHRM', 'PLTE', 'hIST', 'sPLT', 'acTL', 'tRNS']);
    expect(result.bytes).toEqual(beforeIdat(plain, pngChunk('sRGB', Buffer.from([0]))));
  });

  it('empties an IEND chunk that carries data', async () => {
    const input = Buffer.concat([plain.subarray(0, plain.length - 12), pngChunk('IEND', latin1('SECRET'))]);
    const result = ok(await stripPngMetadata(input));
    expect(result.removed).toEqual(['data in IEND']);
    expect(result.bytes).toEqual(plain);
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
      ['a first chunk other than IHDR', () => Buffer.concat([plain.subarray(0, 8), pngChunk('gAMA', Buffer.alloc(4)), plain.subarray(8)])],
      ['a second IHDR', () => beforeIdat(plain, plain.subarray(8, 33))],
      [
        'an IHDR of the wrong length',
        () =>
          Buffer.concat([plain.subarray(0, 8), pngChunk('IHDR', Buffer.concat([plain.subarray(16, 29), latin1('x')])), plain.subarray(33)]),
      ],
      ['a critical chunk whose CRC does not match', () => lengthAt(plain, plain.length - 4, 0)],
      ['no image data', () => Buffer.concat([plain.subarray(0, 33), plain.subarray(plain.length - 12)])],
      ['image data in two runs', () => beforeIend(plain, pngChunk('tEXt', latin1('a\0b')), pngChunk('IDAT', Buffer.alloc(0)))],
      ['a palette in a greyscale image', () => beforeIdat(greyscale, pngChunk('PLTE', Buffer.alloc(6)))],
    ])('%s', async (_name, input) => {
      expect(await stripPngMetadata(input())).toEqual({ ok: false, reason: expect.any(String) });
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

  it('gives back the same Buffer when there is nothing to remove', async () => {
    const result = ok(await stripWebpMetadata(plain));
    expect(result.bytes).toBe(plain);
    expect(result.removed).toEqual([]);
  });

  it('removes EXIF, XMP and unknown chunks, clears their VP8X flags, rewrites the RIFF size; keeps ICCP', async () => {
    expect(riffChunks(tagged)).toEqual(['VP8X', 'ICCP', 'VP8 ', 'EXIF', 'XMP ']);
    expect(tagged[20] & 0x0c).toBe(0x0c);
    const input = Buffer.concat([withChunks(tagged, riffChunk('ZZZZ', latin1('odd'))), latin1('after RIFF SECRET')]);
    const result = ok(await stripWebpMetadata(input));
    expect(result.removed).toEqual(['data after RIFF', 'VP8X metadata flags', 'EXIF', 'XMP', 'ZZZZ']);
    expect(riffChunks(result.bytes)).toEqual(['VP8X', 'ICCP', 'VP8 ']);
    expect(result.bytes.readUInt32LE(4)).toBe(result.bytes.length - 8);
    await expectSameInPlace(stripWebpMetadata, input, result.bytes);
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
    const result = ok(await stripWebpMetadata(input));
    expect(result.removed).toEqual(['VP8X metadata flags', 'ANMF ZZZZ', 'EXIF']);
    await expectSameInPlace(stripWebpMetadata, input, result.bytes);
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

  it('walks frames nested 100 000 deep without recursing: the nest is an unknown chunk of its frame', async () => {
    const nested = await nestedFrames(100_000);
    expect(nested.length).toBeGreaterThan(2_300_000);
    expect(webpBitstream(nested)).toBe('lossless');
    const result = ok(stripWebpMetadata(nested));
    expect(result.removed).toEqual(['ANMF ANMF']);
    expect(riffChunks(result.bytes)).toEqual(['VP8X', 'ANIM', 'ANMF']);
    // The frame without the nest: its header, its bitstream.
    expect(result.bytes).toEqual(await nestedFrames(0));
    expect(await pixels(result.bytes)).toEqual(await pixels(await squares().webp({ lossless: true }).toBuffer()));
    // A first frame whose only sub-chunk is the nest has no bitstream to be found.
    const bare = await nestedFrames(1000, false);
    expect(webpBitstream(bare)).toBeNull();
  });

  it("cuts VP8X and ANIM to the fields decoders read, clears reserved bits, and drops what follows a simple file's bitstream", async () => {
    const vp8x = tagged.subarray(12, 12 + 18);
    const padded = Buffer.concat([riffChunk('VP8X', Buffer.concat([vp8x.subarray(8), latin1('SECRET padding')])), tagged.subarray(30)]);
    padded[8] |= 0xc1;
    padded[10] = 0x5a;
    const input = Buffer.concat([tagged.subarray(0, 12), padded]);
    input.writeUInt32LE(input.length - 8, 4);
    const result = ok(stripWebpMetadata(input));
    expect(result.removed).toEqual(['VP8X metadata flags', 'VP8X reserved bits', 'VP8X padding', 'EXIF', 'XMP']);
    expect(result.bytes.subarray(12, 30)).toEqual(
      Buffer.concat([vp8x.subarray(0, 8), Buffer.from([vp8x[8] & 0x32, 0, 0, 0]), vp8x.subarray(12)]),
    );
    expect(result.bytes.toString('latin1')).not.toContain('SECRET');
    expect(await pixels(result.bytes)).toEqual(await pixels(tagged));

    const simple = withChunks(plain, riffChunk('VP8 ', latin1('SECRET second bitstream')), riffChunk('ALPH', latin1('SECRET')));
    expect(ok(stripWebpMetadata(simple))).toEqual({ ok: true, bytes: plain, removed: ['VP8 after the image', 'ALPH after the image'] });

    const animated = await nestedFrames(1);
    const anim = animated.indexOf(latin1('ANIM'));
    const longAnim = Buffer.concat([
      animated.subarray(0, anim),
      riffChunk('ANIM', Buffer.concat([animated.subarray(anim + 8, anim + 14), latin1('SECRET')])),
      animated.subarray(anim + 14),
    ]);
    longAnim.writeUInt32LE(longAnim.length - 8, 4);
    const cut = ok(stripWebpMetadata(longAnim));
    expect(cut.removed).toEqual(['ANIM padding', 'ANMF ANMF']);
    expect(cut.bytes).toEqual(ok(stripWebpMetadata(animated)).bytes);
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
      [
        'a VP8X chunk shorter than its fields',
        () => withChunks(Buffer.concat([plain.subarray(0, 12), riffChunk('VP8X', Buffer.alloc(8))]), plain.subarray(12)),
      ],
      [
        'an ANMF chunk shorter than its frame header',
        () => withChunks(Buffer.concat([tagged.subarray(0, 30), riffChunk('ANMF', Buffer.alloc(15))])),
      ],
    ])('%s', (_name, input) => {
      expect(stripWebpMetadata(input())).toEqual({ ok: false, reason: expect.any(String) });
    });
  });
});

describe('what our own encoder wrote (ownEncoding)', () => {
  it('comes out the same without its compressed data decoded to its end', async () => {
    const noisy = () =>
      sharp({ create: { width: 40, height: 24, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
        .withIccProfile('p3')
        .withExif({ IFD0: { Copyright: 'SECRET' } });
    for (const [strip, bytes] of [
      [stripJpegMetadata, await noisy().jpeg({ quality: 95, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer()],
      [stripJpegMetadata, await noisy().jpeg({ progressive: true }).toBuffer()],
      [stripPngMetadata, await noisy().png().toBuffer()],
      [stripPngMetadata, await noisy().toColourspace('rgb16').png().toBuffer()],
    ] as const) {
      const walked = ok(await strip(bytes));
      expect(walked.removed).not.toEqual([]);
      expect(await strip(bytes, { ownEncoding: true })).toEqual(walked);
    }
  });
});

/**
 * Fuzzing: damaged versions of images full of metadata (cut anywhere, bytes overwritten, bytes
 * inserted) never make a stripper throw, and whatever it accepts it strips for good: stripping
 * its output again removes nothing, and nothing grows.
 */
describe('metadata strippers, fuzzed', () => {
  const SEEDS = [1, 42, 20261127, 987654321];
  const inputs: Record<string, { strip: Stripper; bytes: Buffer }> = {};

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

  async function expectStrippedForGood(strip: Stripper, input: Buffer): Promise<void> {
    let first: StripResult;
    let inPlace: StripResult;
    const spent = Buffer.from(input);
    try {
      first = await strip(input);
      inPlace = await strip(spent, { inPlace: true });
    } catch (e) {
      throw new Error(`threw on ${input.toString('base64')}: ${(e as Error).message}`);
    }
    // Made in the input's memory, the result is the same bytes.
    expect(inPlace).toEqual(first);
    if (!first.ok) return;
    expect(first.bytes.length).toBeLessThanOrEqual(input.length);
    const again = await strip(first.bytes);
    expect(again).toEqual({ ok: true, bytes: first.bytes, removed: [] });
  }

  describe.each(['jpeg', 'png', 'webp'])('%s', (format) => {
    it.each(SEEDS)('damaged images, seed %d', async (seed) => {
      const { strip, bytes } = inputs[format];
      await expectStrippedForGood(strip, bytes);
      await fc.assert(
        fc.asyncProperty(damage, (d) => expectStrippedForGood(strip, damaged(bytes, d))),
        { numRuns: 300, seed },
      );
    });

    it.each(SEEDS)('random bytes after the signature, seed %d', async (seed) => {
      const { strip, bytes } = inputs[format];
      const head = bytes.subarray(0, format === 'webp' ? 12 : format === 'png' ? 8 : 2);
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (tail) => {
          const input = Buffer.concat([head, Buffer.from(tail)]);
          if (format === 'webp') input.writeUInt32LE(input.length - 8, 4);
          await expectStrippedForGood(strip, input);
        }),
        { numRuns: 300, seed },
      );
    });
  });
});
