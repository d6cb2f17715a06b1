import { dominantColors } from './palette';

function raster(...blocks: Array<[number, [number, number, number]]>): Uint8Array {
  const out: number[] = [];
  for (const [count, rgb] of blocks) for (let i = 0; i < count; i++) out.push(...rgb);
  return Uint8Array.from(out);
}

describe(dominantColors.name, () => {
  it('finds the colours of an image, the most common first', () => {
    const rgb = raster([300, [200, 30, 30]], [600, [20, 40, 200]], [100, [240, 240, 240]]);
    expect(dominantColors(rgb, 3)).toEqual(['#1428c8', '#c81e1e', '#f0f0f0']);
  });

  it('averages near shades into one colour', () => {
    const rgb = raster([500, [100, 100, 100]], [500, [104, 104, 104]], [500, [250, 10, 10]]);
    expect(dominantColors(rgb, 2)).toEqual(['#666666', '#fa0a0a']);
  });

  it('returns a single colour for a flat image', () => {
    expect(dominantColors(raster([2304, [12, 34, 56]]), 5)).toEqual(['#0c2238']);
  });

  it('is deterministic', () => {
    const rgb = new Uint8Array(64 * 36 * 3);
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 7919) % 251;
    expect(dominantColors(rgb)).toEqual(dominantColors(rgb));
    expect(dominantColors(rgb)).toHaveLength(5);
  });

  it('returns nothing for no pixels', () => {
    expect(dominantColors(new Uint8Array(0))).toEqual([]);
  });
});
