const SPZ_MAGIC = 0x5053474e;
const HEADER_WAIT_MS = 500;

/**
 * The splat count from the first bytes of an SPZ, so the loading overlay can say how big the
 * world is while it downloads. Versions 1–3 are one gzip stream (the count is 8 bytes into the
 * inflated header: a few hundred compressed bytes suffice); version 4 has a plain header.
 * Null when the bytes are not (yet) enough or not an SPZ.
 */
export async function spzSplatCount(head: Uint8Array): Promise<number | null> {
  if (head.length >= 16 && readU32(head, 0) === SPZ_MAGIC) return readU32(head, 8);
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) return null;
  const inflate = new DecompressionStream('gzip');
  const writer = inflate.writable.getWriter();
  const reader = inflate.readable.getReader();
  // The stream is cut short on purpose: its end-of-input error is expected and ignored.
  writer.write(head as Uint8Array<ArrayBuffer>).catch(() => undefined);
  const readHeader = async (): Promise<Uint8Array> => {
    let header = new Uint8Array(0);
    while (header.length < 16) {
      const { done, value } = await reader.read();
      if (done) break;
      const next = new Uint8Array(header.length + value.length);
      next.set(header);
      next.set(value, header.length);
      header = next;
    }
    return header;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Too few compressed bytes for a whole header leave the read waiting for input that never comes.
  const giveUp = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), HEADER_WAIT_MS)));
  try {
    const header = await Promise.race([readHeader(), giveUp]);
    return header && header.length >= 16 && readU32(header, 0) === SPZ_MAGIC ? readU32(header, 8) : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => undefined);
    writer.abort().catch(() => undefined);
  }
}

function readU32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) | (bytes[offset + 3] << 24)) >>> 0;
}
