import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { mergeSplats, previewSplats, symmetricEigen } from './splat-preview';
import { Splat, SpzReader, writeSpz } from '@scene-studio/world-engine';

const splat = (overrides: Partial<Splat> = {}): Splat => ({
  position: [0, 0, 0],
  opacity: 0.8,
  color: [0.5, 0.4, 0.3],
  scale: [0.1, 0.1, 0.1],
  rotation: [0, 0, 0, 1],
  ...overrides,
});

/** Row-major R S² Rᵀ: the covariance a splat stands for. */
function covariance(s: Splat): number[] {
  const [x, y, z, w] = s.rotation;
  const r = [
    1 - 2 * (y * y + z * z),
    2 * (x * y - z * w),
    2 * (x * z + y * w),
    2 * (x * y + z * w),
    1 - 2 * (x * x + z * z),
    2 * (y * z - x * w),
    2 * (x * z - y * w),
    2 * (y * z + x * w),
    1 - 2 * (x * x + y * y),
  ];
  const out = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) out[i * 3 + j] += r[i * 3 + k] * s.scale[k] ** 2 * r[j * 3 + k];
  return out;
}

const unit = (q: number[]) => {
  const n = Math.hypot(...q);
  return q.map((c) => c / n) as [number, number, number, number];
};
/** The angle between two orientations, in degrees (q and −q are the same). */
const angleDeg = (a: readonly number[], b: readonly number[]) =>
  (2 * Math.acos(Math.min(1, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]))) * 180) / Math.PI;

/** A ground of splats with a few trees on it, like the procedural worlds. */
function world(n: number): Splat[] {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) =>
    i % 5 === 0
      ? splat({ position: [Math.floor(rand() * 4) * 10 + rand(), rand() * 6, rand()], color: [0.1, 0.6, 0.2], scale: [0.05, 0.05, 0.05] })
      : splat({ position: [rand() * 80 - 40, 0, rand() * 80 - 40], color: [0.5, 0.4, 0.3], scale: [0.2, 0.01, 0.2] }),
  );
}

describe(SpzReader.name, () => {
  it('reads back what writeSpz wrote, to the precision of its encodings', () => {
    const splats = [
      splat({
        position: [1.5, -2.25, 100.125],
        opacity: 0.25,
        color: [0.9, 0.1, 0.5],
        scale: [0.01, 0.2, 3],
        rotation: unit([0.3, -0.5, 0.1, 0.8]),
      }),
      splat({ position: [-1000, 0, 0.0002], rotation: unit([-0.9, 0.1, 0.2, -0.1]) }),
    ];
    const sut = SpzReader.open(writeSpz(splats), 1 << 20);
    expect(sut.count).toBe(2);
    splats.forEach((s, i) => {
      const read = sut.splat(i);
      read.position.forEach((c, k) => expect(c).toBeCloseTo(s.position[k], 3));
      expect(read.opacity).toBeCloseTo(s.opacity, 2);
      read.color.forEach((c, k) => expect(c).toBeCloseTo(s.color[k], 2));
      read.scale.forEach((c, k) => expect(Math.abs(Math.log(c / s.scale[k]))).toBeLessThan(1 / 32 + 1e-9));
      expect(angleDeg(read.rotation, s.rotation)).toBeLessThan(0.5);
    });
  });

  it('reads version 2 files, whose rotations are three bytes with w implied', () => {
    const raw = Buffer.alloc(16 + 19);
    raw.writeUInt32LE(0x5053474e, 0);
    raw.writeUInt32LE(2, 4);
    raw.writeUInt32LE(1, 8);
    raw[13] = 12;
    raw.writeIntLE(4096 * 2, 16, 3); // x = 2 m
    raw[25] = 255; // opacity 1
    raw.set([128, 128, 128], 26); // colour
    raw.set([160, 160, 160], 29); // log scale 0: 1 m
    raw.set([128, 128, 128], 32); // x, y, z ≈ 0: identity
    const read = SpzReader.open(gzipSync(raw), 1 << 20).splat(0);
    expect(read.position).toEqual([2, 0, 0]);
    expect(read.scale.map((s) => Math.round(s * 1000) / 1000)).toEqual([1, 1, 1]);
    expect(angleDeg(read.rotation, [0, 0, 0, 1])).toBeLessThan(1);
  });

  it('refuses what it cannot read, in its own words', () => {
    expect(() => SpzReader.open(Buffer.from('not a splat'), 1 << 20)).toThrow('not an SPZ file');
    const small = writeSpz([splat(), splat()]);
    expect(() => SpzReader.open(small, 20)).toThrow('inflates beyond the limit');
    // Version 4: a 32-byte header, then a table of one (empty) zstd stream.
    const v4 = Buffer.alloc(32 + 16);
    v4.writeUInt32LE(0x5053474e, 0);
    v4.writeUInt32LE(4, 4);
    v4.writeUInt32LE(1, 8);
    v4[15] = 1;
    v4.writeUInt32LE(32, 16);
    expect(() => SpzReader.open(v4, 1 << 20)).toThrow('no reader for SPZ version 4');
  });
});

describe(symmetricEigen.name, () => {
  it('decomposes any symmetric matrix into orthonormal vectors and its values', () => {
    const entry = fc.double({ min: -10, max: 10, noNaN: true });
    fc.assert(
      fc.property(fc.tuple(entry, entry, entry, entry, entry, entry), ([a, b, c, d, e, f]) => {
        const m = [a, b, c, b, d, e, c, e, f] as Parameters<typeof symmetricEigen>[0];
        const { values, vectors: v } = symmetricEigen(m);
        for (let i = 0; i < 3; i++) {
          for (let j = 0; j < 3; j++) {
            let rebuilt = 0;
            let dot = 0;
            for (let k = 0; k < 3; k++) {
              rebuilt += v[i * 3 + k] * values[k] * v[j * 3 + k];
              dot += v[k * 3 + i] * v[k * 3 + j];
            }
            expect(rebuilt).toBeCloseTo(m[i * 3 + j], 6);
            expect(dot).toBeCloseTo(i === j ? 1 : 0, 9);
          }
        }
      }),
    );
  });
});

describe(mergeSplats.name, () => {
  it('keeps a splat merged with its copy where it was, as it was, and no less opaque', () => {
    const s = splat({ position: [1, 2, 3], scale: [0.5, 0.1, 0.02], rotation: unit([0.2, 0.7, -0.1, 0.6]) });
    const merged = mergeSplats([s, s]);
    merged.position.forEach((c, k) => expect(c).toBeCloseTo(s.position[k], 9));
    covariance(merged).forEach((c, k) => expect(c).toBeCloseTo(covariance(s)[k], 9));
    expect(merged.opacity).toBeGreaterThanOrEqual(s.opacity);
    expect(merged.color).toEqual(s.color);
  });

  it('covers both members: the spread between them becomes the merged splat’s extent', () => {
    const a = splat({ position: [-1, 0, 0] });
    const b = splat({ position: [1, 0, 0], color: [0.1, 0.1, 0.1] });
    const merged = mergeSplats([a, b]);
    expect(merged.position).toEqual([0, 0, 0]);
    // Variance along x: the members' own (0.01) plus their offset (1); across: the members' own.
    const cov = covariance(merged);
    expect(cov[0]).toBeCloseTo(1.01, 6);
    expect(cov[4]).toBeCloseTo(0.01, 6);
    expect(cov[8]).toBeCloseTo(0.01, 6);
    merged.color.forEach((c, k) => expect(c).toBeCloseTo((a.color[k] + b.color[k]) / 2, 9));
  });

  it('weighs members by how much they show: an opaque large splat outweighs a faint small one', () => {
    const big = splat({ position: [0, 0, 0], opacity: 1, scale: [1, 1, 1], color: [1, 0, 0] });
    const faint = splat({ position: [1, 0, 0], opacity: 0.1, scale: [0.1, 0.1, 0.1], color: [0, 0, 1] });
    const merged = mergeSplats([big, faint]);
    expect(merged.position[0]).toBeLessThan(0.01);
    expect(merged.color[0]).toBeGreaterThan(0.99);
  });
});

describe(previewSplats.name, () => {
  const source = world(30_000);
  const reader = SpzReader.open(writeSpz(source), 1 << 26);

  it('fits the budget and uses most of it', () => {
    const preview = previewSplats(reader, 2000);
    expect(preview.length).toBeLessThanOrEqual(2000);
    expect(preview.length).toBeGreaterThan(1500);
  });

  it('stays where the world is, with its colours', () => {
    const preview = previewSplats(reader, 2000);
    for (const s of preview) {
      expect(Math.abs(s.position[0])).toBeLessThanOrEqual(40.01);
      expect(s.position[1]).toBeGreaterThanOrEqual(-0.01);
      expect(s.position[1]).toBeLessThanOrEqual(6.01);
    }
    const greenShare = (splats: readonly Splat[]) => splats.filter((s) => s.color[1] > 0.55).length / splats.length;
    // The trees (a fifth of the splats in a small volume) survive as their own cells.
    expect(greenShare(preview)).toBeGreaterThan(0.01);
    expect(preview.every((s) => s.opacity > 0 && s.opacity <= 1 && s.scale.every((c) => c > 0))).toBe(true);
  });

  it('returns a small world as it is', () => {
    const small = SpzReader.open(writeSpz(source.slice(0, 100)), 1 << 20);
    expect(previewSplats(small, 2000)).toHaveLength(100);
  });
});
