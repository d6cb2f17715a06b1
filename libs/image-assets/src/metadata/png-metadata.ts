import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CHUNK_LENGTH = 0x7fffffff;

/**
 * The ancillary chunks kept: those that change how the pixels decode or look (transparency,
 * colour: the ICC profile among them, background, palettes) or move (APNG's frames). The others
 * go: text (tEXt, zTXt, iTXt, where XMP lives), eXIf, tIME, C2PA's caBX, and vendors' chunks
 * (Apple's iDOT, whose file offsets would be wrong once a chunk before it is gone).
 */
const KEPT_ANCILLARY = new Set([
  'tRNS',
  'cHRM',
  'gAMA',
  'iCCP',
  'sBIT',
  'sRGB',
  'cICP',
  'mDCV',
  'cLLI',
  'bKGD',
  'hIST',
  'pHYs',
  'sPLT',
  'acTL',
  'fcTL',
  'fdAT',
]);

/**
 * Removes a PNG's metadata chunks, copying every other chunk byte for byte (CRC included), so the
 * image data is untouched. Critical chunks are always kept: a decoder that does not know one
 * refuses the file, so none can carry metadata past the full decode. Data after IEND goes. A
 * chunk that runs past the end or has a malformed type is refused; a file that ends between
 * chunks before IEND is kept, for the decoder to judge.
 */
export function stripPngMetadata(bytes: Buffer, options: StripOptions = {}): StripResult {
  if (bytes.length < SIGNATURE.length || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return refused('no PNG signature');
  const kept = new KeptRanges(bytes, options.inPlace);
  const removed: string[] = [];
  kept.keep(0, SIGNATURE.length);
  let p = SIGNATURE.length;
  while (p < bytes.length) {
    if (p + 12 > bytes.length) return refused('a chunk header past the end');
    const length = bytes.readUInt32BE(p);
    if (length > MAX_CHUNK_LENGTH) return refused('a chunk length over 2^31 - 1');
    const end = p + 12 + length;
    if (end > bytes.length) return refused('a chunk length past the end');
    if (!isChunkType(bytes, p + 4)) return refused('a malformed chunk type');
    const type = bytes.toString('latin1', p + 4, p + 8);
    const critical = (bytes[p + 4] & 0x20) === 0;
    if (critical || KEPT_ANCILLARY.has(type)) kept.keep(p, end);
    else removed.push(type);
    p = end;
    if (type === 'IEND') {
      if (p < bytes.length) removed.push('data after IEND');
      break;
    }
  }
  return { ok: true, bytes: kept.result(), removed };
}

/** Four ASCII letters (PNG 5.3). */
function isChunkType(bytes: Buffer, at: number): boolean {
  for (let i = at; i < at + 4; i++) {
    const c = bytes[i] | 0x20;
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}
