import { spzSplatCount } from './spz-header';

/** Web streams, as the page has them (this spec is type-checked against the DOM, not node). */
async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
}

function header(version: number, points: number, length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x5053474e, true);
  view.setUint32(4, version, true);
  view.setUint32(8, points, true);
  return bytes;
}

describe(spzSplatCount.name, () => {
  it('reads the count from the first compressed bytes of a gzip SPZ, before the rest has arrived', async () => {
    const raw = header(3, 50_000, 16 + 50_000 * 20);
    for (let i = 16; i < raw.length; i++) raw[i] = (i * 7919) & 0xff;
    const file = await gzip(raw);
    expect(await spzSplatCount(file.subarray(0, 4096))).toBe(50_000);
    expect(await spzSplatCount(file)).toBe(50_000);
  });

  it('reads a version 4 header directly', async () => {
    expect(await spzSplatCount(header(4, 123_456, 32))).toBe(123_456);
  });

  it('answers null for other bytes and for too few bytes, without hanging', async () => {
    expect(await spzSplatCount(await gzip(new TextEncoder().encode('not a splat file at all, just text')))).toBeNull();
    expect(await spzSplatCount(new Uint8Array([0x1f, 0x8b, 8, 0]))).toBeNull();
    expect(await spzSplatCount(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
