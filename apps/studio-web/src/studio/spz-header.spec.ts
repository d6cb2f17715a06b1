import { gzipSync } from 'node:zlib';
import { spzSplatCount } from './spz-header';

function legacySpz(points: number): Buffer {
  const raw = Buffer.alloc(16 + points * 20);
  raw.writeUInt32LE(0x5053474e, 0);
  raw.writeUInt32LE(3, 4);
  raw.writeUInt32LE(points, 8);
  for (let i = 16; i < raw.length; i++) raw[i] = (i * 7919) & 0xff;
  return gzipSync(raw);
}

describe(spzSplatCount.name, () => {
  it('reads the count from the first compressed bytes of a gzip SPZ, before the rest has arrived', async () => {
    const file = legacySpz(50_000);
    expect(await spzSplatCount(new Uint8Array(file.subarray(0, 4096)))).toBe(50_000);
    expect(await spzSplatCount(new Uint8Array(file))).toBe(50_000);
  });

  it('reads a version 4 header directly', async () => {
    const head = Buffer.alloc(32);
    head.writeUInt32LE(0x5053474e, 0);
    head.writeUInt32LE(4, 4);
    head.writeUInt32LE(123_456, 8);
    expect(await spzSplatCount(new Uint8Array(head))).toBe(123_456);
  });

  it('answers null for other bytes and for too few bytes, without hanging', async () => {
    expect(await spzSplatCount(new Uint8Array(gzipSync(Buffer.from('not a splat file at all, just text'))))).toBeNull();
    expect(await spzSplatCount(new Uint8Array([0x1f, 0x8b, 8, 0]))).toBeNull();
    expect(await spzSplatCount(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
