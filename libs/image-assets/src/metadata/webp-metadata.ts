import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';

const RIFF = Buffer.from('RIFF', 'latin1');
const WEBP = Buffer.from('WEBP', 'latin1');
/** VP8X flags (WebP container specification): EXIF and XMP present. */
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;
/** An ANMF frame's header before its sub-chunks: offsets, size, duration, flags. */
const ANMF_HEADER = 16;

/** The chunks that make the image: the extended header, colour profile, animation, alpha, bitstreams. */
const KEPT = new Set(['VP8X', 'ICCP', 'ANIM', 'ANMF', 'ALPH', 'VP8 ', 'VP8L']);
const KEPT_IN_FRAME = new Set(['ALPH', 'VP8 ', 'VP8L']);

/**
 * Removes a WebP's metadata without re-encoding: the EXIF and XMP chunks and any unknown chunk (at
 * the top level and inside animation frames) go, VP8X's EXIF and XMP flags are cleared and the
 * RIFF size is rewritten. The ICC profile (ICCP) and the bitstreams are copied byte for byte.
 * Data after the RIFF chunk goes. A chunk running past the RIFF size, or a RIFF size past the end
 * of the file, is refused.
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

  const walked = walkChunks(bytes, 12, riffEnd, (fourcc, at, dataStart, dataEnd, next) => {
    if (!KEPT.has(fourcc)) {
      removed.push(fourcc.trim());
      changed = true;
      return;
    }
    if (fourcc === 'VP8X' && dataEnd > dataStart && (bytes[dataStart] & (VP8X_EXIF | VP8X_XMP)) !== 0) {
      const chunk = Buffer.from(bytes.subarray(at, next));
      chunk[8] &= ~(VP8X_EXIF | VP8X_XMP);
      kept.add(chunk);
      removed.push('VP8X metadata flags');
      changed = true;
      return;
    }
    if (fourcc === 'ANMF' && dataEnd - dataStart >= ANMF_HEADER) {
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
 * at the top level or in its first animation frame; null when there is none to be found.
 */
export function webpBitstream(bytes: Buffer): 'lossless' | 'lossy' | null {
  if (bytes.length < 12 || !bytes.subarray(0, 4).equals(RIFF) || !bytes.subarray(8, 12).equals(WEBP)) return null;
  const end = Math.min(bytes.length, 8 + bytes.readUInt32LE(4));
  let found: 'lossless' | 'lossy' | null = null;
  const visit: ChunkVisitor = (fourcc, _at, dataStart, dataEnd) => {
    if (found) return 'found';
    if (fourcc === 'VP8L') found = 'lossless';
    else if (fourcc === 'VP8 ') found = 'lossy';
    else if (fourcc === 'ANMF' && dataEnd - dataStart >= ANMF_HEADER) walkChunks(bytes, dataStart + ANMF_HEADER, dataEnd, visit);
  };
  walkChunks(bytes, 12, end, visit);
  return found;
}
