import { ChunkedBlobReader } from './postgres-blob-store';

/** A blob of `size` bytes read through a slice function the test watches. */
function blob(size: number) {
  const bytes = Buffer.from(Array.from({ length: size }, (_, i) => i % 251));
  const reads: Array<[number, number]> = [];
  let pending: Array<() => void> = [];
  let gated = false;
  const readSlice = async (offset: number, length: number) => {
    reads.push([offset, length]);
    if (gated) await new Promise<void>((resolve) => pending.push(resolve));
    return bytes.subarray(offset, offset + length);
  };
  return {
    bytes,
    reads,
    readSlice,
    gate: () => (gated = true),
    release: () => {
      for (const go of pending.splice(0)) go();
      pending = [];
    },
  };
}

describe(ChunkedBlobReader.name, () => {
  it('reads the blob in order, a slice per read, the last one short', async () => {
    const b = blob(10_000);
    const chunks: Buffer[] = [];
    for await (const chunk of new ChunkedBlobReader(b.readSlice, 10_000, 4096)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(b.bytes)).toBe(true);
    expect(b.reads).toEqual([
      [0, 4096],
      [4096, 4096],
      [8192, 1808],
    ]);
  });

  it('asks for the next slice only when the reader has taken the last (back-pressure: one buffered at most)', async () => {
    const b = blob(64 * 1024);
    const sut = new ChunkedBlobReader(b.readSlice, 64 * 1024, 4096);
    const ticks = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // Nobody reads: one slice fills the buffer, and nothing more is asked for.
    sut.read(0);
    await ticks();
    expect(b.reads).toEqual([[0, 4096]]);
    // The reader takes it: the next one is asked for, and only it.
    expect((sut.read() as Buffer).length).toBe(4096);
    await ticks();
    expect(b.reads).toEqual([
      [0, 4096],
      [4096, 4096],
    ]);
    sut.destroy();
  });

  it('ends with an error when a slice comes back short (the blob changed), and drops a slice that arrives after destroy', async () => {
    const short = new ChunkedBlobReader(async () => Buffer.alloc(10), 100, 50);
    await expect(
      (async () => {
        for await (const _ of short) void _;
      })(),
    ).rejects.toThrow('the blob changed or went away while it was streamed');

    const b = blob(100);
    b.gate();
    const sut = new ChunkedBlobReader(b.readSlice, 100, 50);
    const data = jest.fn();
    sut.on('data', data);
    sut.on('error', () => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.reads).toEqual([[0, 50]]);
    sut.destroy();
    b.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(data).not.toHaveBeenCalled();
    expect(b.reads).toEqual([[0, 50]]);
  });
});
