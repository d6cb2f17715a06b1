import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import sharp from 'sharp';
import { stripJpegMetadata } from './jpeg-metadata';
import { huffmanTable } from './jpeg-huffman';
import { MAX_SCANS } from './jpeg-scan';

// The scan walker must agree with libjpeg on where every scan's data ends, for every kind of
// JPEG an encoder writes: then whatever is planted after that end goes, and nothing else does.
// Inputs come from sharp (mozjpeg: baseline, progressive, optimised scans, 4:2:0 to 4:4:4, grey,
// CMYK) and from FFmpeg's MJPEG encoder, the one at hand that writes restart markers.

const latin1 = (s: string) => Buffer.from(s, 'latin1');

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

const insertAt = (bytes: Buffer, at: number, ...insert: Buffer[]) => Buffer.concat([bytes.subarray(0, at), ...insert, bytes.subarray(at)]);

/**
 * The positions where entropy-coded data ends in a file written without stray bytes: the 0xFF of
 * each restart marker and of the marker after each scan, with whether it is a restart marker.
 */
function dataEnds(jpeg: Buffer): { at: number; restart: boolean }[] {
  const ends: { at: number; restart: boolean }[] = [];
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff && jpeg[p + 1] !== 0xd9) {
    const marker = jpeg[p + 1];
    p += 2 + jpeg.readUInt16BE(p + 2);
    if (marker !== 0xda) continue;
    for (;;) {
      p = jpeg.indexOf(0xff, p);
      const next = jpeg[p + 1];
      if (next === 0x00) p += 2;
      else if (next >= 0xd0 && next <= 0xd7) {
        ends.push({ at: p, restart: true });
        p += 2;
      } else break;
    }
    ends.push({ at: p, restart: false });
  }
  return ends;
}

/** The segments of a JPEG (a simple walk over a file without stray bytes), scans' data left out. */
function segments(jpeg: Buffer): { at: number; marker: number; end: number }[] {
  const out: { at: number; marker: number; end: number }[] = [];
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff && jpeg[p + 1] !== 0xd9) {
    const end = p + 2 + jpeg.readUInt16BE(p + 2);
    out.push({ at: p, marker: jpeg[p + 1], end });
    p = jpeg[p + 1] === 0xda ? dataEnds(jpeg).find((e) => !e.restart && e.at > end)!.at : end;
  }
  return out;
}

const markers = (jpeg: Buffer) => segments(jpeg).map((s) => s.marker);

const pixels = (bytes: Buffer) => sharp(bytes).raw().toBuffer();

type Encoding = {
  width: number;
  height: number;
  noise: boolean;
  space: 'srgb' | 'b-w' | 'cmyk';
  options: sharp.JpegOptions;
};

const encodingArb: fc.Arbitrary<Encoding> = fc.record({
  width: fc.integer({ min: 1, max: 80 }),
  height: fc.integer({ min: 1, max: 80 }),
  noise: fc.boolean(),
  space: fc.constantFrom('srgb', 'srgb', 'b-w', 'cmyk' as const),
  options: fc.record({
    quality: fc.integer({ min: 1, max: 100 }),
    progressive: fc.boolean(),
    chromaSubsampling: fc.constantFrom('4:2:0', '4:4:4'),
    optimiseCoding: fc.boolean(),
    mozjpeg: fc.boolean(),
    trellisQuantisation: fc.boolean(),
    optimiseScans: fc.boolean(),
    quantisationTable: fc.integer({ min: 0, max: 8 }),
  }),
});

async function encode(e: Encoding): Promise<Buffer> {
  const create = e.noise
    ? {
        width: e.width,
        height: e.height,
        channels: 3 as const,
        background: '#000',
        noise: { type: 'gaussian' as const, mean: 128, sigma: 50 },
      }
    : { width: e.width, height: e.height, channels: 3 as const, background: { r: 20, g: 120, b: 220 } };
  let image = sharp({ create });
  if (e.space !== 'srgb') image = image.toColourspace(e.space);
  return image.jpeg(e.options).toBuffer();
}

/** A JPEG with restart markers every `interval`-ish MCUs, from FFmpeg's MJPEG encoder (slices), in the given chroma format. */
function ffmpegJpeg(png: Buffer, slices: number, pixelFormat: string): Buffer {
  const run = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'png_pipe',
      '-i',
      '-',
      '-c:v',
      'mjpeg',
      '-pix_fmt',
      pixelFormat,
      '-threads',
      String(slices),
      '-slices',
      String(slices),
      '-frames:v',
      '1',
      '-f',
      'mjpeg',
      '-',
    ],
    { input: png, maxBuffer: 64 << 20 },
  );
  if (run.status !== 0) throw new Error(`ffmpeg failed: ${run.stderr.toString()}`);
  return run.stdout;
}

const SEEDS = [7, 20261129, 1234567];

describe('the JPEG scan walker', () => {
  let restartJpegs: Buffer[];
  beforeAll(async () => {
    const png = await sharp({
      create: { width: 160, height: 96, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .png()
      .toBuffer();
    // FFmpeg signs its files with a comment: the first walk removes it, and only it.
    restartJpegs = [];
    for (const [slices, format] of [
      [4, 'yuvj420p'],
      [3, 'yuvj422p'],
      [6, 'yuvj444p'],
    ] as const) {
      const signed = ffmpegJpeg(png, slices, format);
      const result = await stripJpegMetadata(signed);
      expect(result).toEqual({ ok: true, bytes: expect.any(Buffer), removed: ['COM'] });
      if (result.ok) restartJpegs.push(result.bytes);
    }
    for (const jpeg of restartJpegs) {
      expect(markers(jpeg)).toContain(0xdd);
      expect(dataEnds(jpeg).filter((e) => e.restart).length).toBeGreaterThan(1);
      await sharp(jpeg, { failOn: 'warning' }).raw().toBuffer();
    }
  });

  it.each(SEEDS)('walks every JPEG sharp writes to its end, removing nothing, seed %d', async (seed) => {
    await fc.assert(
      fc.asyncProperty(encodingArb, async (e) => {
        const jpeg = await encode(e);
        expect(await stripJpegMetadata(jpeg)).toEqual({ ok: true, bytes: jpeg, removed: [] });
      }),
      { numRuns: 40, seed },
    );
  });

  it('walks JPEGs with restart markers, in every chroma format, removing nothing', async () => {
    for (const jpeg of restartJpegs) expect(await stripJpegMetadata(jpeg)).toEqual({ ok: true, bytes: jpeg, removed: [] });
  });

  it('walks a Motion-JPEG frame without Huffman tables with the standard ones, as libjpeg-turbo decodes it', async () => {
    const standard = await sharp({
      create: { width: 40, height: 24, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg({ optimiseCoding: false })
      .toBuffer();
    let withoutTables = standard;
    for (let at = withoutTables.indexOf(Buffer.from([0xff, 0xc4])); at >= 0; at = withoutTables.indexOf(Buffer.from([0xff, 0xc4]))) {
      withoutTables = Buffer.concat([withoutTables.subarray(0, at), withoutTables.subarray(at + 2 + withoutTables.readUInt16BE(at + 2))]);
    }
    expect(markers(withoutTables)).not.toContain(0xc4);
    expect(await stripJpegMetadata(withoutTables)).toEqual({ ok: true, bytes: withoutTables, removed: [] });
    expect(await pixels(withoutTables)).toEqual(await pixels(standard));
  });

  /** Bytes that can sit between a scan's data and the next marker: anything but 0xFF, or a stuffed 0xFF00. */
  const junkArb = fc
    .array(
      fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 0xfe }).map((b) => [b]), weight: 20 },
        { arbitrary: fc.constant([0xff, 0x00]), weight: 1 },
      ),
      {
        minLength: 1,
        maxLength: 64,
      },
    )
    .map((bytes) => Buffer.from(bytes.flat()));

  it.each(SEEDS)('removes bytes planted after any scan or restart interval, and nothing else, seed %d', async (seed) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          encodingArb.map((e) => ({ e, restart: -1 })),
          fc.nat(2).map((restart) => ({ e: null, restart })),
        ),
        fc.nat(),
        fc.option(junkArb, { nil: null }),
        fc.boolean(),
        async ({ e, restart }, where, junk, withFill) => {
          const jpeg = e ? await encode(e) : restartJpegs[restart];
          const ends = dataEnds(jpeg);
          const end = ends[where % ends.length];
          // Fill bytes (0xFF) before a marker are part of the file as written: alone they stay.
          const fill = withFill ? Buffer.from([0xff, 0xff]) : Buffer.alloc(0);
          const input = insertAt(jpeg, end.at, junk ?? Buffer.alloc(0), fill);
          const result = await stripJpegMetadata(input);
          if (junk) expect(result).toEqual({ ok: true, bytes: jpeg, removed: ['data after a scan'] });
          else expect(result).toEqual({ ok: true, bytes: input, removed: [] });
          if (result.ok) expect(await stripJpegMetadata(result.bytes)).toEqual({ ok: true, bytes: result.bytes, removed: [] });
        },
      ),
      { numRuns: 60, seed },
    );
  });

  it.each(SEEDS)(
    'removes DNL segments, and cuts the Adobe segment libjpeg reads to its 12 bytes, whatever text they carry, seed %d',
    async (seed) => {
      await fc.assert(
        fc.asyncProperty(encodingArb, fc.nat(), fc.string({ minLength: 1, maxLength: 200 }), async (e, where, text) => {
          const jpeg = await encode(e);
          const ends = dataEnds(jpeg).filter((x) => !x.restart);
          const at = ends[where % ends.length].at;
          const dnl = segment(0xdc, Buffer.concat([Buffer.from([0, e.height]), Buffer.from(text)]));
          expect(await stripJpegMetadata(insertAt(jpeg, at, dnl))).toEqual({ ok: true, bytes: jpeg, removed: ['DNL'] });

          // libjpeg goes by the last Adobe segment before the first scan (sharp writes one in CMYK
          // files): a padded one put last is cut to the 12 bytes libjpeg reads, the one before goes.
          const own = segments(jpeg).find((s) => s.marker === 0xee);
          const adobe = own
            ? jpeg.subarray(own.at + 4, own.at + 16)
            : Buffer.concat([latin1('Adobe'), Buffer.from([0, 100, 0, 0, 0, 0, 1])]);
          const firstScan = segments(jpeg).find((s) => s.marker === 0xda)!.at;
          const padded = insertAt(jpeg, firstScan, segment(0xee, Buffer.concat([adobe, Buffer.from(text)])));
          const result = await stripJpegMetadata(padded);
          const expected = insertAt(jpeg, firstScan, segment(0xee, adobe));
          expect(result).toEqual({
            ok: true,
            bytes: own ? Buffer.concat([expected.subarray(0, own.at), expected.subarray(own.end)]) : expected,
            removed: own ? ['APP14', 'Adobe padding'] : ['Adobe padding'],
          });
          if (result.ok) expect(await pixels(result.bytes)).toEqual(await pixels(jpeg));
        }),
        { numRuns: 30, seed },
      );
    },
  );

  it.each(SEEDS)('refuses a JPEG that ends after any scan without its EOI marker, text after it or not, seed %d', async (seed) => {
    await fc.assert(
      fc.asyncProperty(encodingArb, fc.nat(), fc.string({ maxLength: 40 }), async (e, where, text) => {
        const jpeg = await encode(e);
        const ends = dataEnds(jpeg).filter((x) => !x.restart);
        const cut = Buffer.concat([jpeg.subarray(0, ends[where % ends.length].at), Buffer.from(text.replace(/\xff/g, ''), 'latin1')]);
        const result = await stripJpegMetadata(cut);
        expect(result.ok).toBe(false);
      }),
      { numRuns: 30, seed },
    );
  });

  describe('refuses scan data libjpeg would have to make up', () => {
    let baseline: Buffer;
    let progressive: Buffer;
    beforeAll(async () => {
      const noise = sharp({
        create: { width: 48, height: 32, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
      });
      baseline = await noise.clone().jpeg().toBuffer();
      progressive = await noise.clone().jpeg({ progressive: true }).toBuffer();
    });

    it('cut inside a scan, or a scan that runs into a marker', async () => {
      const [end] = dataEnds(baseline);
      expect(await stripJpegMetadata(baseline.subarray(0, end.at - 20))).toEqual({
        ok: false,
        reason: 'scan data that ends before its last block',
      });
      const short = Buffer.concat([baseline.subarray(0, end.at - 20), baseline.subarray(end.at)]);
      expect(await stripJpegMetadata(short)).toEqual({ ok: false, reason: 'scan data that ends before its last block' });
    });

    it('restart markers out of order', async () => {
      const jpeg = restartJpegs[0];
      const restart = dataEnds(jpeg).find((e) => e.restart)!;
      const swapped = Buffer.from(jpeg);
      swapped[restart.at + 1] = 0xd5;
      expect(await stripJpegMetadata(swapped)).toEqual({ ok: false, reason: 'a restart marker missing or out of order' });
    });

    it('a code that no Huffman table defines', async () => {
      // All ones: the code that libjpeg's tables never assign.
      const [end] = dataEnds(baseline);
      const sos = baseline.indexOf(Buffer.from([0xff, 0xda]));
      const dataStart = sos + 2 + baseline.readUInt16BE(sos + 2);
      const ones = Buffer.concat([
        baseline.subarray(0, dataStart),
        Buffer.from([0xff, 0x00, 0xff, 0x00, 0xff, 0x00]),
        baseline.subarray(end.at - 10),
      ]);
      expect(await stripJpegMetadata(ones)).toEqual({ ok: false, reason: 'a Huffman code that no table defines' });
    });

    it('lossless, hierarchical and arithmetic coding, and more scans than any encoder writes', async () => {
      const sof = baseline.indexOf(Buffer.from([0xff, 0xc0]));
      for (const marker of [0xc3, 0xc5, 0xc9, 0xca, 0xcb, 0xcd]) {
        const other = Buffer.from(baseline);
        other[sof + 1] = marker;
        expect(await stripJpegMetadata(other)).toEqual({
          ok: false,
          reason: expect.stringMatching(/losslessly, hierarchically or arithmetically/),
        });
      }
      // The first scan of a progressive JPEG (DC coefficients, whose bits do not depend on the
      // scans before), repeated: each copy is data the walker decodes.
      const ends = dataEnds(progressive);
      const firstSos = progressive.indexOf(Buffer.from([0xff, 0xda]));
      const firstScan = progressive.subarray(firstSos, ends[0].at);
      const scans = ends.length;
      const many = (n: number) => insertAt(progressive, ends[0].at, ...Array.from({ length: n }, () => firstScan));
      expect((await stripJpegMetadata(many(MAX_SCANS - scans))).ok).toBe(true);
      expect(await stripJpegMetadata(many(MAX_SCANS - scans + 1))).toEqual({ ok: false, reason: `more than ${MAX_SCANS} scans` });
    });

    it('headers whose length does not match their content, as libjpeg refuses them', async () => {
      const grow = (marker: number) => {
        const at = baseline.indexOf(Buffer.from([0xff, marker]));
        const length = baseline.readUInt16BE(at + 2);
        const out = insertAt(baseline, at + 2 + length, latin1('SECRET'));
        out.writeUInt16BE(length + 6, at + 2);
        return out;
      };
      for (const marker of [0xc0, 0xc4, 0xdb, 0xda]) expect((await stripJpegMetadata(grow(marker))).ok).toBe(false);
      const dri = insertAt(baseline, 2, segment(0xdd, Buffer.from([0, 4, 0x53, 0x45])));
      expect((await stripJpegMetadata(dri)).ok).toBe(false);
    });
  });
});

describe(huffmanTable.name, () => {
  it('refuses what libjpeg refuses: too many codes for their lengths, a DC symbol over 15, counts that do not match', () => {
    const counts = (...n: number[]) => Uint8Array.from([...n, ...Array(16 - n.length).fill(0)]);
    expect(huffmanTable(counts(1, 1), Uint8Array.from([0, 1]), true)).not.toBeNull();
    // No code may be all ones: 0, 10 and 11 are refused, as 0 and 1 are.
    expect(huffmanTable(counts(1, 2), Uint8Array.from([0, 1, 2]), true)).toBeNull();
    expect(huffmanTable(counts(2), Uint8Array.from([0, 1]), true)).toBeNull();
    expect(huffmanTable(counts(1, 3), Uint8Array.from([0, 1, 2, 3]), true)).toBeNull();
    expect(huffmanTable(counts(1), Uint8Array.from([16]), true)).toBeNull();
    expect(huffmanTable(counts(1), Uint8Array.from([16]), false)).not.toBeNull();
    expect(huffmanTable(counts(1, 1), Uint8Array.from([0]), true)).toBeNull();
  });
});
