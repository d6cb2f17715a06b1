/**
 * Counts the commands clients send to Redis, by name, read from RESP as a TcpProxy passes it on:
 * each command is an array of bulk strings (`*<n>\r\n` then `$<len>\r\n<bytes>\r\n` n times),
 * pipelined or not. Inline commands (a bare line, as redis-cli's) are not expected from ioredis
 * and count as `(inline)`.
 */
export class RedisCommandCounter {
  readonly byName = new Map<string, number>();
  private readonly buffers = new Map<number, Buffer>();

  get total(): number {
    let n = 0;
    for (const v of this.byName.values()) n += v;
    return n;
  }

  /** A copy of the counts now, to compare with later. */
  snapshot(): Map<string, number> {
    return new Map(this.byName);
  }

  /** The commands counted since `before`, by name (only those that moved). */
  since(before: Map<string, number>): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, n] of this.byName) if (n !== (before.get(name) ?? 0)) out[name] = n - (before.get(name) ?? 0);
    return out;
  }

  readonly feed = (connection: number, chunk: Buffer): void => {
    let buffer = Buffer.concat([this.buffers.get(connection) ?? Buffer.alloc(0), chunk]);
    for (;;) {
      const parsed = parseCommand(buffer);
      if (!parsed) break;
      this.byName.set(parsed.name, (this.byName.get(parsed.name) ?? 0) + 1);
      buffer = buffer.subarray(parsed.length);
    }
    this.buffers.set(connection, buffer);
  };
}

/** The first complete command in `buffer`: its name (lower case) and its length in bytes; null when incomplete. */
function parseCommand(buffer: Buffer): { name: string; length: number } | null {
  const line = (from: number): { text: string; next: number } | null => {
    const end = buffer.indexOf('\r\n', from);
    return end < 0 ? null : { text: buffer.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (!head) return null;
  if (head.text[0] !== '*') return { name: '(inline)', length: head.next };
  const count = Number(head.text.slice(1));
  let at = head.next;
  let name = '';
  for (let i = 0; i < count; i++) {
    const size = line(at);
    if (!size) return null;
    const bytes = Number(size.text.slice(1));
    if (buffer.length < size.next + bytes + 2) return null;
    if (i === 0) name = buffer.toString('latin1', size.next, size.next + bytes).toLowerCase();
    at = size.next + bytes + 2;
  }
  return { name, length: at };
}
