/**
 * What a metadata stripper made of a file: the bytes to store (the input itself when nothing had
 * to go) and the names of what it dropped, or why it refused a file whose structure it cannot walk.
 * Strippers never throw on bad input: an upload is untrusted, and a refusal is answered as
 * `image_corrupt`.
 */
export type StripResult = { ok: true; bytes: Buffer; removed: string[] } | { ok: false; reason: string };

export const refused = (reason: string): StripResult => ({ ok: false, reason });

/**
 * The kept ranges of a file, merged where they touch, so a file with nothing removed comes back
 * as the same Buffer and one with a few segments removed costs a single copy.
 */
export class KeptRanges {
  private readonly parts: Buffer[] = [];
  private start = -1;
  private end = -1;

  constructor(private readonly source: Buffer) {}

  keep(from: number, to: number): void {
    if (from === this.end) {
      this.end = to;
      return;
    }
    this.flush();
    this.start = from;
    this.end = to;
  }

  /** A replacement for a part of the file (a rewritten header). */
  add(bytes: Buffer): void {
    this.flush();
    this.parts.push(bytes);
  }

  /** The kept bytes; `source` itself when they are all of it, unchanged. */
  result(): Buffer {
    if (this.parts.length === 0 && this.start === 0 && this.end === this.source.length) return this.source;
    this.flush();
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
  }

  private flush(): void {
    if (this.start >= 0 && this.end > this.start) this.parts.push(this.source.subarray(this.start, this.end));
    this.start = this.end = -1;
  }
}
