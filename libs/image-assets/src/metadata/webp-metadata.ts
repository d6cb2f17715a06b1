import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';

const RIFF = Buffer.from('RIFF', 'latin1');
const WEBP = Buffer.from('WEBP', 'latin1');
/** VP8X flags (WebP container specification): EXIF and XMP present. */
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;
/** The flags kept: an ICC profile, alpha, animation; the other bits are metadata's or reserved. */
const VP8X_KEPT = 0x20 | 0x10 | 0x02;
/** VP8X's data: flags, 3 reserved bytes, the canvas width and height; libwebp reads no more. */
const VP8X_SIZE = 10;
/** ANIM's data: background colour and loop count. */
const ANIM_SIZE = 6;
/** An ANMF frame's header before its sub-chunks: offsets, size, duration, flags. */
const ANMF_HEADER = 16;

/** The chunks that make the image: the extended header, colour profile, animation, alpha, bitstreams. */
const KEPT = new Set(['VP8X', 'ICCP', 'ANIM', 'ANMF', 'ALPH', 'VP8 ', 'VP8L']);
const KEPT_IN_FRAME = new Set(['ALPH', 'VP8 ', 'VP8L']);

/**
 * Removes a WebP's metadata without re-encoding: the EXIF and XMP chunks and any unknown chunk (at
 * the top level and inside animation frames) go, VP8X's EXIF and XMP flags (and reserved bits)
 * are cleared, and the RIFF size is rewritten. What decoders do not read goes too: VP8X and
 * ANIM beyond their fixed sizes, a VP8X that is not the first chunk, anything after the
 * bitstream of a simple (VP8X-less) file. The ICC profile (ICCP) and the bitstreams are copied
 * byte for byte. Data after the RIFF chunk goes. Frames do not nest: an ANMF chunk inside a frame
 * is an unknown chunk, removed whole, so the walk never goes deeper than a frame's sub-chunks.
 * A chunk running past the RIFF size, a RIFF size past the end of the file, or a VP8X, ANIM or
 * ANMF chunk shorter than its fixed fields is refused.
 */
export function stripWebpMetadata(bytes: Buffer, options: StripOptions = {}): StripResult {
  if (bytes.length < 12 || !bytes.subarray(0, 4).equals(RIFF) || !bytes.subarray(8, 12).equals(WEBP)) return refused('no RIFF WEBP header');
  const riffEnd = 8 + bytes.readUInt32LE(4);
  if (riffEnd < 12 || riffEnd > bytes.length) return refused('a RIFF size past the end');
  const removed: string[] = [];
  // The RIFF header first, its size written once the chunks kept are known.
  const header = Buffer.from(bytes.subarray(0, 12));
  const kept = new KeptRanges(bytes, options.inPlace);
  kept.add(header);
  let changed = riffEnd < bytes.length;
  if (changed) removed.push('data after RIFF');
  let first = true;
  let simple = false;
  const drop = (name: string) => {
    removed.push(name);
    changed = true;
  };

  const walked = walkChunks(bytes, 12, riffEnd, (fourcc, at, dataStart, dataEnd, next) => {
    const isFirst = first;
    first = false;
    const size = dataEnd - dataStart;
    if (simple) return drop(`${fourcc.trim()} after the image`);
    if (isFirst && (fourcc === 'VP8 ' || fourcc === 'VP8L')) simple = true;
    else if (!KEPT.has(fourcc) || (fourcc === 'VP8X' && !isFirst)) return drop(fourcc.trim());
    if (fourcc === 'VP8X') {
      if (size < VP8X_SIZE) return 'a VP8X chunk shorter than its fields';
      const chunk = Buffer.from(bytes.subarray(at, dataStart + VP8X_SIZE));
      chunk.writeUInt32LE(VP8X_SIZE, 4);
      chunk[8] &= VP8X_KEPT;
      chunk.fill(0, 9, 12);
      if (chunk.equals(bytes.subarray(at, next))) return void kept.keep(at, next);
      if (bytes[dataStart] & (VP8X_EXIF | VP8X_XMP)) removed.push('VP8X metadata flags');
      if (bytes[dataStart] & ~(VP8X_KEPT | VP8X_EXIF | VP8X_XMP) || bytes.readUIntLE(dataStart + 1, 3) !== 0)
        removed.push('VP8X reserved bits');
      if (size > VP8X_SIZE) removed.push('VP8X padding');
      kept.add(chunk);
      changed = true;
      return;
    }
    if (fourcc === 'ANIM') {
      if (size < ANIM_SIZE) return 'an ANIM chunk shorter than its fields';
      if (size > ANIM_SIZE) {
        const chunk = Buffer.from(bytes.subarray(at, dataStart + ANIM_SIZE));
        chunk.writeUInt32LE(ANIM_SIZE, 4);
        kept.add(chunk);
        return drop('ANIM padding');
      }
    }
    if (fourcc === 'ANMF') {
      if (size < ANMF_HEADER) return 'an ANMF chunk shorter than its frame header';
      const frame = stripFrame(bytes, at, dataStart, dataEnd, removed);
      if (!frame) return 'a frame chunk past its end';
      if (frame !== true) {
        kept.add(frame);
        changed = true;
        return;
      }
    }
    kept.keep(at, next);
  });
  if (walked) return refused(walked);
  if (!changed) return { ok: true, bytes, removed };

  header.writeUInt32LE(kept.length - 8, 4);
  return { ok: true, bytes: kept.result(), removed };
}

type ChunkVisitor = (fourcc: string, at: number, dataStart: number, dataEnd: number, next: number) => string | void;

/** Visits the chunks in [from, end); the first problem (a chunk past `end`, or the visitor's) ends the walk. */
function walkChunks(bytes: Buffer, from: number, end: number, visit: ChunkVisitor): string | null {
  let p = from;
  while (p < end) {
    if (p + 8 > end) return 'a chunk header past the end';
    const size = bytes.readUInt32LE(p + 4);
    const dataEnd = p + 8 + size;
    if (dataEnd > end) return 'a chunk size past the end';
    // Odd sizes are padded to even; a missing pad byte at the very end is tolerated.
    const next = Math.min(dataEnd + (size & 1), end);
    const problem = visit(bytes.toString('latin1', p, p + 4), p, p + 8, dataEnd, next);
    if (problem) return problem;
    p = next;
  }
  return null;
}

/** An ANMF chunk without unknown sub-chunks: `true` when it has none, null when it cannot be walked. */
function stripFrame(bytes: Buffer, at: number, dataStart: number, dataEnd: number, removed: string[]): Buffer | true | null {
  const frame = new KeptRanges(bytes);
  let dropped = false;
  const problem = walkChunks(bytes, dataStart + ANMF_HEADER, dataEnd, (fourcc, subAt, _s, _e, next) => {
    if (KEPT_IN_FRAME.has(fourcc)) frame.keep(subAt, next);
    else {
      removed.push(`ANMF ${fourcc.trim()}`);
      dropped = true;
    }
  });
  if (problem) return null;
  if (!dropped) return true;
  const subChunks = frame.result();
  const header = Buffer.from(bytes.subarray(at, dataStart + ANMF_HEADER));
  header.writeUInt32LE(ANMF_HEADER + subChunks.length, 4);
  return Buffer.concat([header, subChunks]);
}

/**
 * Whether the (first) image of a WebP is lossless (VP8L) or lossy (VP8), from its first bitstream
 * at the top level or among an animation frame's own sub-chunks; null when there is none to be
 * found. A loop, one level deep: frames do not nest, so an ANMF inside a frame is not looked into
 * (a file of frames nested 100 000 deep once overflowed the stack of a recursive walk here).
 */
export function webpBitstream(bytes: Buffer): 'lossless' | 'lossy' | null {
  if (bytes.length < 12 || !bytes.subarray(0, 4).equals(RIFF) || !bytes.subarray(8, 12).equals(WEBP)) return null;
  const end = Math.min(bytes.length, 8 + bytes.readUInt32LE(4));
  let found: 'lossless' | 'lossy' | null = null;
  const bitstream: ChunkVisitor = (fourcc) => {
    if (fourcc === 'VP8L') found = 'lossless';
    else if (fourcc === 'VP8 ') found = 'lossy';
    if (found) return 'found';
  };
  walkChunks(bytes, 12, end, (fourcc, at, dataStart, dataEnd, next) => {
    if (fourcc === 'ANMF' && dataEnd - dataStart >= ANMF_HEADER) walkChunks(bytes, dataStart + ANMF_HEADER, dataEnd, bitstream);
    return found ? 'found' : bitstream(fourcc, at, dataStart, dataEnd, next);
  });
  return found;
}
