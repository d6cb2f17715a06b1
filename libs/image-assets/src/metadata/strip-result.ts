/**
 * What a metadata stripper made of a file: the bytes to store (the input itself when nothing had
 * to go) and the names of what it dropped, or why it refused a file whose structure it cannot walk.
 * Strippers never throw on bad input: an upload is untrusted, and a refusal is answered as
 * `image_corrupt`.
 */
export type StripResult = { ok: true; bytes: Buffer; removed: string[] } | { ok: false; reason: string };

export const refused = (reason: string): StripResult => ({ ok: false, reason });

export interface StripOptions {
  /**
   * Makes the result in the input's own memory (the kept bytes moved to its start) instead of a
   * new Buffer: the input is then spent. For a 10 MiB upload in flight, one buffer instead of two.
   */
  inPlace?: boolean;
  /**
   * The bytes come from our own encoder (an upright re-encode): their compressed image data holds
   * the pixels and nothing else, so it is kept without being decoded to its end (a JPEG's scans,
   * a PNG's zlib stream). Headers and chunks are walked all the same.
   */
  ownEncoding?: boolean;
}

/**
 * The kept parts of a file, in order: ranges of it (merged where they touch) and replacements
 * (rewritten headers, made before `result`). A file with nothing removed comes back as the same
 * Buffer, one with a few segments removed costs a single copy, or none in place.
 */
export class KeptRanges {
  private readonly parts: Buffer[] = [];
  private start = -1;
  private end = -1;
  /** The kept bytes so far. */
  length = 0;

  constructor(
    private readonly source: Buffer,
    private readonly inPlace = false,
  ) {}

  keep(from: number, to: number): void {
    this.length += to - from;
    if (from === this.end) {
      this.end = to;
      return;
    }
    this.flush();
    this.start = from;
    this.end = to;
  }

  /** A replacement for a part of the file (a rewritten header), no longer than what it replaces. */
  add(bytes: Buffer): void {
    this.flush();
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  /** The kept bytes; `source` itself when they are all of it, unchanged. */
  result(): Buffer {
    if (this.parts.length === 0 && this.start === 0 && this.end === this.source.length) return this.source;
    this.flush();
    if (!this.inPlace) return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    // Each part lands at or before where it was read from (the output is the input with pieces
    // left out, and a replacement is no longer than what it replaces), so moving the parts
    // forward in order never overwrites one not yet moved; Buffer#copy allows the overlap.
    let at = 0;
    for (const part of this.parts) at += part.copy(this.source, at);
    return this.source.subarray(0, at);
  }

  private flush(): void {
    if (this.start >= 0 && this.end > this.start) this.parts.push(this.source.subarray(this.start, this.end));
    this.start = this.end = -1;
  }
}
