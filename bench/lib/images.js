'use strict';
// Images for benchmarks, generated in code (no binary fixtures): a colour gradient with uniform
// noise, the way a photo has smooth areas and sensor noise. The noise amplitude sets how well
// PNG compresses it, which is how an image is tuned to a target file size.

const { crc32, deflateSync } = require('node:zlib');
const sharp = require('sharp');

/** A small seeded PRNG (mulberry32) so that every run uploads the same bytes. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Raw RGB pixels: gradient plus noise of `amplitude` levels (peak to peak). */
function gradientNoise(width, height, amplitude, seed) {
  const rnd = prng(seed);
  const px = Buffer.allocUnsafe(width * height * 3);
  let i = 0;
  for (let y = 0; y < height; y++) {
    const gy = y / height;
    for (let x = 0; x < width; x++) {
      const gx = x / width;
      const base0 = 40 + 150 * gx;
      const base1 = 60 + 120 * gy;
      const base2 = 200 - 140 * gx * gy;
      for (const base of [base0, base1, base2]) {
        const v = Math.round(base + (rnd() - 0.5) * amplitude);
        px[i++] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
    }
  }
  return px;
}

// Adaptive filtering lets PNG's per-row filters remove the gradient, as any photo editor does.
const PNG_OPTIONS = { compressionLevel: 6, adaptiveFiltering: true };

function encodePng(width, height, amplitude, seed) {
  return sharp(gradientNoise(width, height, amplitude, seed), { raw: { width, height, channels: 3 } })
    .png(PNG_OPTIONS)
    .toBuffer();
}

/** A `width`×`height` PNG with photo-like noise. */
function photoPng(width, height, { amplitude = 16, seed = 1 } = {}) {
  return encodePng(width, height, amplitude, seed);
}

/**
 * A `width`×`height` PNG whose size is as close as bisection on the noise amplitude gets to
 * `targetBytes` without exceeding it (within `tolerance`).
 */
async function photoPngOfSize(width, height, targetBytes, { seed = 1, tolerance = 0.01, maxSteps = 12 } = {}) {
  let lo = 0;
  let hi = 256;
  let best = null;
  for (let step = 0; step < maxSteps; step++) {
    const amplitude = (lo + hi) / 2;
    const png = await encodePng(width, height, amplitude, seed);
    if (png.length <= targetBytes) {
      best = { png, amplitude };
      if (png.length >= targetBytes * (1 - tolerance)) break;
      lo = amplitude;
    } else {
      hi = amplitude;
    }
  }
  if (!best) throw new Error(`no ${width}×${height} PNG fits in ${targetBytes} bytes`);
  return best;
}

// ---------------------------------------------------------------------------------------------
// Metadata, as phones and editors leave it: the api removes it from what it stores (docs/api.md,
// "Metadata"), so the bench's images carry it and every build is measured doing that work.

/** A big-endian TIFF block (as EXIF holds it): camera make, `orientation`, and a GPS position. */
function exifTiff(orientation) {
  const out = Buffer.alloc(8 + (2 + 3 * 12 + 4) + 8 + (2 + 2 * 12 + 4) + 24);
  out.write('MM\0*', 0, 'latin1');
  out.writeUInt32BE(8, 4);
  const entry = (at, tag, type, count, value) => {
    out.writeUInt16BE(tag, at);
    out.writeUInt16BE(type, at + 2);
    out.writeUInt32BE(count, at + 4);
    if (type === 3) out.writeUInt16BE(value, at + 8);
    else if (typeof value === 'string') out.write(value, at + 8, 'latin1');
    else out.writeUInt32BE(value, at + 8);
  };
  const make = 8 + 2 + 3 * 12 + 4;
  const gps = make + 8;
  const latitude = gps + 2 + 2 * 12 + 4;
  out.writeUInt16BE(3, 8);
  entry(10, 0x010f, 2, 8, make); // Make, at `make`
  entry(22, 0x0112, 3, 1, orientation);
  entry(34, 0x8825, 4, 1, gps); // the GPS IFD
  out.write('Bench!\0\0', make, 'latin1');
  out.writeUInt16BE(2, gps);
  entry(gps + 2, 0x0001, 2, 2, 'N\0');
  entry(gps + 14, 0x0002, 5, 3, latitude);
  [48, 1, 51, 1, 2964, 100].forEach((v, i) => out.writeUInt32BE(v, latitude + 4 * i));
  return out;
}

const XMP = Buffer.from(
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.494N"/></rdf:RDF></x:xmpmeta>',
);

function pngChunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A Display P3 ICC profile (sharp's), to embed by hand without touching the pixels. */
async function p3Profile() {
  const { icc } = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
    .withIccProfile('p3')
    .png()
    .toBuffer()
    .then((b) => sharp(b).metadata());
  return icc;
}

/**
 * `png` with a P3 profile (iCCP) and metadata chunks spliced in after IHDR: eXIf (camera and GPS),
 * tEXt, iTXt (XMP) and tIME. The image data is the same bytes.
 */
async function withPngMetadata(png) {
  const ihdrEnd = 8 + 12 + 13;
  return Buffer.concat([
    png.subarray(0, ihdrEnd),
    pngChunk('iCCP', Buffer.concat([Buffer.from('ICC Profile\0\0', 'latin1'), deflateSync(await p3Profile())])),
    pngChunk('eXIf', exifTiff(1)),
    pngChunk('tEXt', Buffer.from('Comment\0taken at home', 'latin1')),
    pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), XMP])),
    pngChunk('tIME', Buffer.from([0x07, 0xea, 11, 27, 9, 41, 0])),
    png.subarray(ihdrEnd),
  ]);
}

function jpegSegment(marker, payload) {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/**
 * A photo as a phone stores a portrait shot: `width`×`height` pixels (landscape, as the sensor
 * reads them) of gradient and noise, JPEG quality 90, with EXIF orientation 6 (and GPS), XMP and
 * a P3 profile: displayed `height`×`width`. The api turns its pixels (a re-encode).
 */
async function orientedPhotoJpeg(width, height, { amplitude = 16, seed = 3 } = {}) {
  const jpeg = await sharp(gradientNoise(width, height, amplitude, seed), { raw: { width, height, channels: 3 } })
    .withIccProfile('p3')
    .jpeg({ quality: 90 })
    .toBuffer();
  return Buffer.concat([
    jpeg.subarray(0, 2),
    jpegSegment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exifTiff(6)])),
    jpegSegment(0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), XMP])),
    jpeg.subarray(2),
  ]);
}

/**
 * The re-encode of issue 34: a `width`×`height` 16-bit RGBA PNG of flat colour with a square
 * (so it is small: under 1 MiB at 6000×4000) with EXIF orientation 6 in an eXIf chunk. Turning it
 * holds its raster: width × height × 4 channels × 2 bytes.
 */
async function orientedSixteenBitPng(width, height) {
  const side = Math.floor(Math.min(width, height) / 4);
  const square = { create: { width: side, height: side, channels: 4, background: { r: 20, g: 90, b: 220, alpha: 1 } } };
  const png = await sharp({ create: { width, height, channels: 4, background: { r: 210, g: 70, b: 20, alpha: 0.6 } } })
    .composite([{ input: square, left: side, top: side }])
    .toColourspace('rgb16')
    .png(PNG_OPTIONS)
    .toBuffer();
  const ihdrEnd = 8 + 12 + 13;
  return Buffer.concat([png.subarray(0, ihdrEnd), pngChunk('eXIf', exifTiff(6)), png.subarray(ihdrEnd)]);
}

module.exports = { photoPng, photoPngOfSize, PNG_OPTIONS, withPngMetadata, orientedPhotoJpeg, orientedSixteenBitPng };
