import sharp from 'sharp';
import { ImageDecodeError, ImageTooLargeToTurnError } from './image-media';
import { REENCODE_BUDGET_BYTES, reencodeWeight, SharpImageMedia } from './sharp-image-media';

// The adapter against sharp itself: what an upright re-encode keeps (colour space, bit depth,
// profile, alpha) and what it drops (every piece of metadata, the orientation once applied).

/** A minimal big-endian EXIF block holding only an orientation. */
function exifOrientation(orientation: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write('MM\0*', 0, 'latin1');
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x0112, 10);
  tiff.writeUInt16BE(3, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(orientation, 18);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
}

/** A JPEG from sharp with an EXIF orientation spliced in after SOI (sharp would convert to sRGB to write one). */
function withOrientation(jpeg: Buffer, orientation: number): Buffer {
  const payload = exifOrientation(orientation);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

const sixteenBy8 = (channels: 3 | 4 = 3) =>
  sharp({ create: { width: 16, height: 8, channels, background: { r: 220, g: 40, b: 30, alpha: 0.5 } } }).composite([
    { input: { create: { width: 4, height: 4, channels: 3, background: { r: 10, g: 200, b: 10 } } }, left: 0, top: 0 },
  ]);

describe(SharpImageMedia.name, () => {
  const sut = new SharpImageMedia();

  it('reads the orientation with the header, and the dimensions as displayed', async () => {
    const jpeg = withOrientation(await sixteenBy8().jpeg().toBuffer(), 6);
    expect(await sut.readHeader(jpeg)).toEqual({ format: 'jpeg', width: 8, height: 16, orientation: 6, icc: null });
    const png = await sixteenBy8().withIccProfile('p3').png().toBuffer();
    expect(await sut.readHeader(png)).toEqual({
      format: 'png',
      width: 16,
      height: 8,
      orientation: 1,
      icc: (await sharp(png).metadata()).icc,
    });
  });

  describe('upright', () => {
    async function expectUpright(out: Buffer, format: string, width: number, height: number) {
      const meta = await sharp(out).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format, width, height });
      expect([meta.orientation, meta.exif, meta.xmp, meta.iptc, meta.comments]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      return meta;
    }

    it('turns a JPEG, keeping its ICC profile and its pixels in that profile (no conversion to sRGB)', async () => {
      const jpeg = withOrientation(await sixteenBy8().withIccProfile('p3').jpeg({ quality: 95 }).toBuffer(), 6);
      const out = await sut.upright(jpeg, { format: 'jpeg', quality: 95 });
      const meta = await expectUpright(out, 'jpeg', 8, 16);
      expect(meta.icc).toEqual((await sharp(jpeg).metadata()).icc);
      expect(meta.chromaSubsampling).toBe('4:4:4');
      // Orientation 6: the green corner, stored top-left, is now top-right.
      const px = await sharp(out).extract({ left: 7, top: 0, width: 1, height: 1 }).raw().toBuffer();
      expect(px[1]).toBeGreaterThan(150);
      const [upright, mine] = await Promise.all([sharp(jpeg).autoOrient().raw().toBuffer(), sharp(out).raw().toBuffer()]);
      let diff = 0;
      for (let i = 0; i < mine.length; i++) diff = Math.max(diff, Math.abs(mine[i] - upright[i]));
      expect(diff).toBeLessThan(24);
    });

    it('keeps greyscale and CMYK JPEGs as they are (with their profile)', async () => {
      const grey = withOrientation(await sixteenBy8().toColourspace('b-w').jpeg().toBuffer(), 8);
      const greyMeta = await expectUpright(await sut.upright(grey, { format: 'jpeg', quality: 95 }), 'jpeg', 8, 16);
      expect([greyMeta.space, greyMeta.channels]).toEqual(['b-w', 1]);

      const cmyk = withOrientation(await sixteenBy8().withIccProfile('cmyk').jpeg().toBuffer(), 5);
      expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
      const cmykMeta = await expectUpright(await sut.upright(cmyk, { format: 'jpeg', quality: 95 }), 'jpeg', 8, 16);
      expect([cmykMeta.space, cmykMeta.channels]).toEqual(['cmyk', 4]);
      expect(cmykMeta.icc).toEqual((await sharp(cmyk).metadata()).icc);
    });

    it('turns a 16-bit PNG losslessly, still 16-bit, with its profile', async () => {
      const raw = Buffer.alloc(16 * 8 * 3 * 2);
      for (let i = 0; i < raw.length; i += 2) raw.writeUInt16LE((i * 997) % 65536, i);
      const png = await sharp(raw, { raw: { width: 16, height: 8, channels: 3 } })
        .toColourspace('rgb16')
        .png()
        .withMetadata({ orientation: 7 })
        .toBuffer();
      const input = await sharp(png).metadata();
      expect([input.bitsPerSample, input.hasProfile]).toEqual([16, true]);
      const out = await sut.upright(png, { format: 'png' });
      const meta = await expectUpright(out, 'png', 8, 16);
      expect(meta.bitsPerSample).toBe(16);
      expect(meta.icc).toEqual(input.icc);
      const opts = { depth: 'ushort' } as const;
      expect(await sharp(out).raw(opts).toBuffer()).toEqual(await sharp(png).autoOrient().raw(opts).toBuffer());
    });

    it('keeps a greyscale PNG greyscale', async () => {
      const png = Buffer.from(await sixteenBy8().toColourspace('b-w').png().toBuffer());
      // An eXIf chunk with orientation 8, before IDAT.
      const exif = Buffer.from('MM\0*\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x08\0\0\0\0\0\0', 'latin1');
      const chunk = Buffer.alloc(12 + exif.length);
      chunk.writeUInt32BE(exif.length, 0);
      chunk.write('eXIf', 4, 'latin1');
      exif.copy(chunk, 8);
      const oriented = Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
      const input = await sharp(oriented).metadata();
      expect([input.orientation, input.space]).toEqual([8, 'b-w']);
      const out = await sut.upright(oriented, { format: 'png' });
      const meta = await expectUpright(out, 'png', 8, 16);
      expect([meta.space, meta.channels]).toEqual(['b-w', input.channels]);
      expect(await sharp(out).raw().toBuffer()).toEqual(await sharp(oriented).autoOrient().raw().toBuffer());
    });

    it('turns a palette PNG into true colour with the same pixels', async () => {
      const png = await sixteenBy8().png({ palette: true }).withMetadata({ orientation: 3 }).toBuffer();
      const out = await sut.upright(png, { format: 'png' });
      await expectUpright(out, 'png', 16, 8);
      expect(await sharp(out).raw().toBuffer()).toEqual(await sharp(png).autoOrient().raw().toBuffer());
    });

    it('turns a lossless WebP with alpha losslessly, and a lossy one at the given quality', async () => {
      const lossless = await sixteenBy8(4).webp({ lossless: true }).withMetadata({ orientation: 6 }).toBuffer();
      const out = await sut.upright(lossless, { format: 'webp', lossless: true });
      const meta = await expectUpright(out, 'webp', 8, 16);
      expect(meta.hasAlpha).toBe(true);
      expect(await sharp(out).raw().toBuffer()).toEqual(await sharp(lossless).autoOrient().raw().toBuffer());

      const lossy = await sixteenBy8().webp({ quality: 90 }).withMetadata({ orientation: 2 }).toBuffer();
      await expectUpright(await sut.upright(lossy, { format: 'webp', lossless: false, quality: 95 }), 'webp', 16, 8);
    });

    it('runs any number of re-encodes through its slots, a failed one freeing its slot', async () => {
      const jpeg = withOrientation(await sixteenBy8().jpeg().toBuffer(), 6);
      const results = await Promise.allSettled(
        Array.from({ length: 7 }, (_, i) => sut.upright(i % 3 === 0 ? jpeg.subarray(0, 40) : jpeg, { format: 'jpeg', quality: 95 })),
      );
      expect(results.map((r) => r.status)).toEqual([
        'rejected',
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
        'rejected',
      ]);
      await expectUpright(await sut.upright(jpeg, { format: 'jpeg', quality: 95 }), 'jpeg', 8, 16);
    });

    it('throws ImageDecodeError for data it cannot decode', async () => {
      const jpeg = withOrientation(await sixteenBy8().jpeg().toBuffer(), 6);
      await expect(sut.upright(jpeg.subarray(0, jpeg.length - 60), { format: 'jpeg', quality: 95 })).rejects.toBeInstanceOf(
        ImageDecodeError,
      );
      await expect(sut.upright(Buffer.from('not an image'), { format: 'png' })).rejects.toBeInstanceOf(ImageDecodeError);
    });
  });

  describe(reencodeWeight.name, () => {
    const MP24 = { width: 6000, height: 4000 };

    it('counts bit depth × channels × pixels, from the header: a 24-megapixel 16-bit RGBA PNG runs alone, within the budget', () => {
      const sixteen = reencodeWeight({ ...MP24, channels: 4, depth: 'ushort' }, { format: 'png' }, 280_000);
      expect(sixteen).toBeGreaterThan(REENCODE_BUDGET_BYTES / 2);
      expect(sixteen).toBeLessThanOrEqual(REENCODE_BUDGET_BYTES);
      // Its 8-bit twin weighs half (the raster, not the file, is what costs).
      expect(reencodeWeight({ ...MP24, channels: 4, depth: 'uchar' }, { format: 'png' }, 280_000)).toBeLessThan(sixteen / 1.9);
    });

    it('lets two 24-megapixel RGB JPEGs run together, and counts the encoded copy by the upload size', () => {
      const jpeg = reencodeWeight({ ...MP24, channels: 3, depth: 'uchar' }, { format: 'jpeg', quality: 95 }, 13 << 20);
      expect(jpeg).toBeLessThanOrEqual(REENCODE_BUDGET_BYTES / 2);
      expect(reencodeWeight({ ...MP24, channels: 3, depth: 'uchar' }, { format: 'jpeg', quality: 95 }, 1 << 20)).toBe(
        jpeg - 24 * (1 << 20),
      );
    });

    it("weighs WebP by libwebp's encoder, and only an animation's first frame", () => {
      const frame = { width: 2000, height: 1000, channels: 4 as const, depth: 'uchar' as const };
      expect(reencodeWeight(frame, { format: 'webp', lossless: true }, 0)).toBe(2_000_000 * 48);
      expect(reencodeWeight(frame, { format: 'webp', lossless: false, quality: 95 }, 0)).toBe(2_000_000 * 28);
      expect(reencodeWeight({ ...frame, height: 10_000, pageHeight: 1000 }, { format: 'webp', lossless: false, quality: 95 }, 0)).toBe(
        2_000_000 * 28,
      );
    });
  });

  it('refuses to turn an image whose re-encode would not fit in the budget even alone, before decoding it', async () => {
    const webp = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#345' } })
      .webp({ lossless: true })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const refusal = sut.upright(webp, { format: 'webp', lossless: true });
    await expect(refusal).rejects.toBeInstanceOf(ImageTooLargeToTurnError);
    const { maxPixels } = (await refusal.catch((e: ImageTooLargeToTurnError) => e)) as ImageTooLargeToTurnError;
    expect(maxPixels).toBeLessThan(4000 * 3000);
    expect(
      reencodeWeight({ width: maxPixels, height: 1, channels: 3, depth: 'uchar' }, { format: 'webp', lossless: true }, webp.length),
    ).toBeLessThanOrEqual(REENCODE_BUDGET_BYTES);
  });
});
