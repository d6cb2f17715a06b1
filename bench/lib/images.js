'use strict';
// Images for benchmarks, generated in code (no binary fixtures): a colour gradient with uniform
// noise, the way a photo has smooth areas and sensor noise. The noise amplitude sets how well
// PNG compresses it, which is how an image is tuned to a target file size.

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

module.exports = { photoPng, photoPngOfSize, PNG_OPTIONS };
