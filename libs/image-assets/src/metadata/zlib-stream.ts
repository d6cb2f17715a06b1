import { createInflate } from 'node:zlib';

export type ZlibStreamCheck = { ok: true; consumed: number } | { ok: false; reason: string };

/**
 * Inflates the zlib stream spread over `parts` (a PNG's IDAT data) on libuv's thread pool,
 * keeping none of the output, and checks it holds exactly `expected` bytes: `consumed` is how
 * many input bytes the stream took, up to its end and its checksum, so what follows it in
 * `parts` is data no decoder reads. Stops as soon as the output passes `expected` (a
 * decompression bomb costs no more than the image it claims to be).
 */
export function checkZlibStream(parts: Buffer[], expected: number): Promise<ZlibStreamCheck> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    let out = 0;
    let settled = false;
    const settle = (result: ZlibStreamCheck) => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      resolve(result);
    };
    inflate.on('data', (chunk: Buffer) => {
      out += chunk.length;
      if (out > expected) settle({ ok: false, reason: 'image data longer than the image' });
    });
    inflate.once('end', () =>
      settle(out === expected ? { ok: true, consumed: inflate.bytesWritten } : { ok: false, reason: 'image data shorter than the image' }),
    );
    inflate.once('error', () => settle({ ok: false, reason: 'image data that does not inflate to its end' }));
    for (const part of parts) inflate.write(part);
    inflate.end();
  });
}
