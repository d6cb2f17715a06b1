import { crc32 } from 'node:zlib';
import { MAX_PIXELS, MAX_SIDE_PX } from '../image-rules';
import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';
import { checkZlibStream } from './zlib-stream';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CHUNK_LENGTH = 0x7fffffff;
const IEND = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

/**
 * Whether an ancillary chunk is kept: those that change how the pixels decode or look
 * (transparency, colour, the ICC profile among them, background, pixel size), each with the
 * length its content has (by the image's colour type where it depends on it; libpng ignores one
 * of another length). The others go: text (tEXt, zTXt, iTXt, where XMP lives), eXIf, tIME, C2PA's
 * caBX, vendors' chunks (Apple's iDOT, whose file offsets would be wrong once a chunk before it
 * is gone), suggestions for displays that decoders do not use (hIST, sPLT) and APNG's frames
 * (acTL, fcTL, fdAT), which our decoder never reads.
 */
function validAncillary(type: string, length: number, data: Buffer, h: Header, paletteEntries: number): boolean {
  const channels = [1, 0, 3, 1, 2, 0, 4][h.colourType];
  switch (type) {
    case 'gAMA':
      return length === 4;
    case 'cHRM':
      return length === 32;
    case 'sRGB':
      return length === 1;
    case 'cICP':
      return length === 4;
    case 'mDCV':
      return length === 24;
    case 'cLLI':
      return length === 8;
    case 'pHYs':
      return length === 9;
    case 'sBIT':
      return length === (h.colourType === 3 ? 3 : channels);
    case 'bKGD':
      if (h.colourType === 3) return length === 1 && data[0] < paletteEntries;
      return length === (h.colourType & 2 ? 6 : 2);
    case 'tRNS':
      if (h.colourType === 3) return paletteEntries > 0 && length >= 1 && length <= paletteEntries;
      return h.colourType === 0 ? length === 2 : h.colourType === 2 ? length === 6 : false;
    case 'iCCP': {
      // A profile name of 1 to 79 bytes, its NUL, compression method 0, then the profile.
      const nul = data.indexOf(0);
      return nul >= 1 && nul <= 79 && length >= nul + 3 && data[nul + 1] === 0;
    }
    default:
      return false;
  }
}

interface Chunk {
  start: number;
  end: number;
  type: string;
  /** What becomes of it: kept, dropped (named in `removed`), or an image data chunk, decided once the stream is checked. */
  fate: 'keep' | 'drop' | 'idat' | 'iend';
}

/**
 * Removes a PNG's metadata chunks, copying every other chunk byte for byte (CRC included), so the
 * image data is untouched. Every chunk kept is one a decoder reads to make the pixels, whole:
 * IHDR first and of its exact length, a palette only where the image uses one, the kept ancillary
 * chunks before the image data, each once, with the length its content has and a CRC that
 * matches (libpng ignores one that does not). The image data (the zlib stream of the IDAT chunks)
 * is inflated once to find where it ends: IDAT bytes after its end go, and a stream that is not
 * exactly the image's size is refused. An unknown critical chunk is refused wherever it is (a
 * decoder must refuse it, libpng only does before the image data), as are a critical chunk whose
 * CRC does not match, chunks out of order, and a chunk that runs past the end or has a malformed
 * type. IEND loses any data, and data after IEND goes; a file that ends between chunks after its
 * image data is kept without IEND, for the decoder to judge.
 */
export async function stripPngMetadata(bytes: Buffer, options: StripOptions = {}): Promise<StripResult> {
  if (bytes.length < SIGNATURE.length || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return refused('no PNG signature');
  const removed: string[] = [];
  const chunks: Chunk[] = [];
  let header: Header | null = null;
  let paletteEntries = 0;
  let phase: 'head' | 'data' | 'after' = 'head';
  const seen = new Set<string>();
  let p = SIGNATURE.length;
  while (p < bytes.length) {
    if (p + 12 > bytes.length) return refused('a chunk header past the end');
    const length = bytes.readUInt32BE(p);
    if (length > MAX_CHUNK_LENGTH) return refused('a chunk length over 2^31 - 1');
    const end = p + 12 + length;
    if (end > bytes.length) return refused('a chunk length past the end');
    if (!isChunkType(bytes, p + 4)) return refused('a malformed chunk type');
    const type = bytes.toString('latin1', p + 4, p + 8);
    const data = bytes.subarray(p + 8, p + 8 + length);
    const crcMatches = crc32(bytes.subarray(p + 4, p + 8 + length)) === bytes.readUInt32BE(p + 8 + length);
    const critical = (bytes[p + 4] & 0x20) === 0;
    if (!header && type !== 'IHDR') return refused('a first chunk other than IHDR');
    if (type !== 'IDAT' && phase === 'data') phase = 'after';
    let fate: Chunk['fate'];
    if (critical) {
      if (!crcMatches) return refused(`a ${type} chunk whose CRC does not match`);
      switch (type) {
        case 'IHDR': {
          if (header) return refused('a second IHDR chunk');
          const parsed = parseHeader(data);
          if (typeof parsed === 'string') return refused(parsed);
          header = parsed;
          fate = 'keep';
          break;
        }
        case 'PLTE':
          if (phase !== 'head' || seen.has(type)) return refused('a palette out of place');
          if (length === 0 || length % 3 !== 0 || length > 3 * 256) return refused('a palette of a malformed length');
          seen.add(type);
          if (header!.colourType === 3) {
            if (length / 3 > 1 << header!.depth) return refused('a palette with more entries than the bit depth reaches');
            paletteEntries = length / 3;
            fate = 'keep';
          } else if (header!.colourType & 2) {
            // A true-colour image's palette only suggests colours to a display that has few.
            fate = 'drop';
          } else return refused('a palette in a greyscale image');
          break;
        case 'IDAT':
          if (phase === 'after') return refused('image data in more than one run of IDAT chunks');
          if (header!.colourType === 3 && paletteEntries === 0) return refused('image data before the palette');
          phase = 'data';
          fate = 'idat';
          break;
        case 'IEND':
          if (phase === 'head') return refused('no image data');
          fate = 'iend';
          break;
        default:
          return refused(`an unknown critical chunk ${type}`);
      }
    } else {
      fate =
        phase === 'head' && crcMatches && !seen.has(type) && validAncillary(type, length, data, header!, paletteEntries) ? 'keep' : 'drop';
      seen.add(type);
    }
    if (fate === 'drop') removed.push(type);
    chunks.push({ start: p, end, type, fate });
    p = end;
    if (type === 'IEND') {
      if (length > 0) removed.push('data in IEND');
      if (p < bytes.length) removed.push('data after IEND');
      break;
    }
  }
  if (!header || phase === 'head') return refused('no image data');

  const idat = chunks.filter((c) => c.fate === 'idat');
  const parts = idat.map((c) => bytes.subarray(c.start + 8, c.end - 4));
  let streamLeft = parts.reduce((n, part) => n + part.length, 0);
  if (!options.ownEncoding) {
    const stream = await checkZlibStream(parts, imageDataSize(header));
    if (!stream.ok) return refused(stream.reason);
    streamLeft = stream.consumed;
  }

  const kept = new KeptRanges(bytes, options.inPlace);
  kept.keep(0, SIGNATURE.length);
  for (const c of chunks) {
    if (c.fate === 'keep') kept.keep(c.start, c.end);
    else if (c.fate === 'iend') {
      if (c.end - c.start === IEND.length) kept.keep(c.start, c.end);
      else kept.add(Buffer.from(IEND));
    } else if (c.fate === 'idat') {
      const length = c.end - c.start - 12;
      if (streamLeft === 0) removed.push(length > 0 ? 'IDAT after the image data' : 'empty IDAT');
      else if (streamLeft >= length) kept.keep(c.start, c.end);
      else {
        kept.add(pngChunk('IDAT', bytes.subarray(c.start + 8, c.start + 8 + streamLeft)));
        removed.push('data after the image data');
      }
      streamLeft -= Math.min(streamLeft, length);
    }
  }
  return { ok: true, bytes: kept.result(), removed };
}

/** IHDR's fields, checked as libpng checks them (PNG 11.2.2), and within the sizes accepted at all. */
function parseHeader(data: Buffer): Header | string {
  if (data.length !== 13) return 'an IHDR chunk of the wrong length';
  const width = data.readUInt32BE(0);
  const height = data.readUInt32BE(4);
  const [depth, colourType, compression, filter, interlace] = data.subarray(8, 13);
  const depths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
  if (!depths[colourType]?.includes(depth)) return 'a bit depth and colour type that do not go together';
  if (compression !== 0 || filter !== 0 || interlace > 1) return 'an unknown compression, filter or interlace method';
  if (width === 0 || height === 0) return 'an image without a width or a height';
  if (width > MAX_SIDE_PX || height > MAX_SIDE_PX || width * height > MAX_PIXELS) return 'an image larger than accepted';
  return { width, height, depth, colourType, interlaced: interlace === 1 };
}

/** Adam7's passes: where each starts and its steps, across and down. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/** How many bytes the image data inflates to: each row of each pass, with its filter byte. */
function imageDataSize(h: Header): number {
  const bitsPerPixel = [1, 0, 3, 1, 2, 0, 4][h.colourType] * h.depth;
  const rows = (width: number, height: number) => (width === 0 || height === 0 ? 0 : height * (1 + Math.ceil((width * bitsPerPixel) / 8)));
  if (!h.interlaced) return rows(h.width, h.height);
  return ADAM7.reduce(
    (n, [x0, y0, dx, dy]) => n + rows(Math.ceil(Math.max(0, h.width - x0) / dx), Math.ceil(Math.max(0, h.height - y0) / dy)),
    0,
  );
}

function pngChunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Four ASCII letters (PNG 5.3). */
function isChunkType(bytes: Buffer, at: number): boolean {
  for (let i = at; i < at + 4; i++) {
    const c = bytes[i] | 0x20;
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}
