import { HexColor } from '../scene-spec';
import { rgbToHex } from './colors';

/**
 * The dominant colours of an sRGB raster (3 bytes per pixel), most common first.
 *
 * k-means in RGB, seeded without randomness so the same pixels always give the same palette:
 * pixels are binned on a coarse 16×16×16 grid, the fullest bin is the first centre, and each
 * next centre is the bin that maximises (pixels × squared distance to the nearest centre). That
 * favours colours that are both common and different, so a few odd pixels cannot claim a slot
 * and two centres never start on the same colour. A flat image yields a one-colour palette.
 */
export function dominantColors(rgb: Uint8Array, k = 5, iterations = 12): HexColor[] {
  const n = Math.floor(rgb.length / 3);
  if (n === 0) return [];
  const centres = seedCentres(rgb, n, k);

  const counts = new Array<number>(centres.length).fill(0);
  for (let iter = 0; iter < iterations; iter++) {
    const sums = centres.map(() => [0, 0, 0]);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const r = rgb[i * 3];
      const g = rgb[i * 3 + 1];
      const b = rgb[i * 3 + 2];
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < centres.length; c++) {
        const d = dist2(r, g, b, centres[c]);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      counts[best]++;
      sums[best][0] += r;
      sums[best][1] += g;
      sums[best][2] += b;
    }
    let moved = false;
    for (let c = 0; c < centres.length; c++) {
      if (counts[c] === 0) continue;
      const next = [sums[c][0] / counts[c], sums[c][1] / counts[c], sums[c][2] / counts[c]];
      if (dist2(next[0], next[1], next[2], centres[c]) > 1e-6) moved = true;
      centres[c] = next;
    }
    if (!moved) break;
  }

  const order = centres.map((_, c) => c).filter((c) => counts[c] > 0);
  order.sort((a, b) => counts[b] - counts[a] || a - b);
  const seen = new Set<string>();
  const palette: HexColor[] = [];
  for (const c of order) {
    const hex = rgbToHex([centres[c][0] / 255, centres[c][1] / 255, centres[c][2] / 255]);
    if (!seen.has(hex)) {
      seen.add(hex);
      palette.push(hex);
    }
  }
  return palette;
}

function seedCentres(rgb: Uint8Array, n: number, k: number): number[][] {
  const count = new Map<number, number>();
  const sum = new Map<number, [number, number, number]>();
  for (let i = 0; i < n; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    count.set(key, (count.get(key) ?? 0) + 1);
    const s = sum.get(key) ?? [0, 0, 0];
    s[0] += r;
    s[1] += g;
    s[2] += b;
    sum.set(key, s);
  }
  // Sorted by key so that ties are broken the same way every time.
  const bins = [...count.keys()]
    .sort((a, b) => a - b)
    .map((key) => {
      const c = count.get(key)!;
      const s = sum.get(key)!;
      return { count: c, colour: [s[0] / c, s[1] / c, s[2] / c] };
    });

  const centres: number[][] = [];
  const nearest = bins.map(() => Infinity);
  for (let c = 0; c < k; c++) {
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < bins.length; i++) {
      const score = c === 0 ? bins[i].count : bins[i].count * nearest[i];
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    if (best < 0) break;
    const colour = [...bins[best].colour];
    centres.push(colour);
    for (let i = 0; i < bins.length; i++) {
      nearest[i] = Math.min(nearest[i], dist2(bins[i].colour[0], bins[i].colour[1], bins[i].colour[2], colour));
    }
  }
  return centres;
}

function dist2(r: number, g: number, b: number, c: number[]): number {
  const dr = r - c[0];
  const dg = g - c[1];
  const db = b - c[2];
  return dr * dr + dg * dg + db * db;
}
