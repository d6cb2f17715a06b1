import { HuffmanTables } from './jpeg-huffman';
import { Frame, MAX_SCANS, nextMarkerCode, ownScan, parseFrame, parseScan, walkScan } from './jpeg-scan';
import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';
import { Yielder } from './yielding';

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const DQT = 0xdb;
const DNL = 0xdc;
const DRI = 0xdd;
const DHT = 0xc4;
const DAC = 0xcc;
const SOF0 = 0xc0;
const SOF1 = 0xc1;
const SOF2 = 0xc2;
const APP0 = 0xe0;
const APP2 = 0xe2;
const APP14 = 0xee;
const APP15 = 0xef;
const COM = 0xfe;
const TEM = 0x01;

const JFIF = Buffer.from('JFIF\0', 'latin1');
const ICC_PROFILE = Buffer.from('ICC_PROFILE\0', 'latin1');
const ADOBE = Buffer.from('Adobe', 'latin1');
/** A JFIF APP0 segment without a thumbnail: length 16 (identifier, version, units, densities, 0×0). */
const JFIF_LENGTH = 16;
/** Adobe's APP14 segment: length 14 (identifier, version, two flag words, the colour transform); libjpeg reads no more. */
const ADOBE_LENGTH = 14;

/**
 * Removes a JPEG's metadata without touching its compressed image data: every APPn segment but
 * the three that change how pixels decode or look — JFIF (APP0, its thumbnail dropped), the ICC
 * profile (APP2 `ICC_PROFILE`, all its chunks) and Adobe's colour transform (APP14, cut to the
 * 12 bytes libjpeg reads), of JFIF and Adobe the one libjpeg goes by — and every comment (COM).
 * So EXIF and XMP (APP1), MPF (APP2), IPTC (APP13 `Photoshop 3.0`), JUMBF/C2PA (APP11) and
 * vendors' blocks go. Whatever follows the end-of-image marker goes too: MPF's secondary images
 * and gain maps live there, with EXIF of their own.
 *
 * Every other byte kept is one libjpeg reads to make the pixels: the frame, table and scan
 * headers are parsed whole (a length that does not match their content is refused, as libjpeg
 * refuses it), segments libjpeg skips go (DNL, DAC, JFIF and Adobe segments another one
 * overrides, restart markers outside a scan), and each scan's entropy-coded data is decoded
 * (jpeg-scan.ts) to find where it really ends: bytes between that end and the next marker go.
 * Markers are found as libjpeg finds them (stray bytes and fill bytes before a marker skipped). A
 * structure it cannot walk (no SOI, a length running past the end, an unknown marker, a second
 * SOI or frame header, scan data that does not decode, a file that ends before its EOI marker) is
 * refused, as is a JPEG coded losslessly, hierarchically or arithmetically (which browsers do not
 * display).
 */
export async function stripJpegMetadata(bytes: Buffer, options: StripOptions = {}): Promise<StripResult> {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) return refused('no SOI marker');
  const kept = new KeptRanges(bytes, options.inPlace);
  const removed: string[] = [];
  const tables = new HuffmanTables();
  const yielder = new Yielder();
  let frame: Frame | null = null;
  let restartInterval = 0;
  let scans = 0;
  const read = colourSegmentsRead(bytes);
  kept.keep(0, 2);
  let p = 2;
  for (;;) {
    const code = nextMarkerCode(bytes, p);
    if (code < 0) return refused('the file ends outside image data, before its EOI marker');
    if (code - 1 > p) removed.push('stray bytes');
    const marker = bytes[code];
    const at = code - 1;
    if (marker === EOI) {
      if (scans === 0) return refused('no scan before the EOI marker');
      kept.keep(at, code + 1);
      if (code + 1 < bytes.length) removed.push('data after EOI');
      return { ok: true, bytes: kept.result(), removed };
    }
    if (marker === SOI) return refused('a second SOI marker');
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === TEM) {
      // Markers without a length: restart markers belong inside a scan (walkScan keeps those).
      removed.push(marker === TEM ? 'TEM' : 'RST');
      p = code + 1;
      continue;
    }
    if (code + 3 > bytes.length) return refused('a marker without its length');
    const length = bytes.readUInt16BE(code + 1);
    const end = code + 1 + length;
    if (length < 2 || end > bytes.length) return refused(`a segment length past the end (marker 0x${hex(marker)})`);
    const payload = bytes.subarray(code + 3, end);
    p = end;

    if (marker === SOF0 || marker === SOF1 || marker === SOF2) {
      if (frame) return refused('a second frame header');
      const parsed = parseFrame(marker === SOF2, payload);
      if (typeof parsed === 'string') return refused(parsed);
      frame = parsed;
      kept.keep(at, end);
    } else if (
      (marker >= 0xc3 && marker <= 0xcf && marker !== DHT && marker !== 0xc8 && marker !== DAC) ||
      marker === 0xde ||
      marker === 0xdf
    ) {
      return refused(`a JPEG coded losslessly, hierarchically or arithmetically (marker 0x${hex(marker)})`);
    } else if (marker === DHT) {
      const problem = tables.define(payload);
      if (problem) return refused(problem);
      kept.keep(at, end);
    } else if (marker === DQT) {
      if (!wholeQuantisationTables(payload)) return refused('a DQT segment that is not whole tables');
      kept.keep(at, end);
    } else if (marker === DRI) {
      if (length !== 4) return refused('a DRI segment of the wrong length');
      restartInterval = payload.readUInt16BE(0);
      kept.keep(at, end);
    } else if (marker === DNL || marker === DAC) {
      // libjpeg skips DNL (a frame whose height is 0 is refused above); DAC serves arithmetic coding only.
      removed.push(marker === DNL ? 'DNL' : 'DAC');
    } else if (marker === SOS) {
      if (!frame) return refused('a scan before the frame header');
      if (++scans > MAX_SCANS) return refused(`more than ${MAX_SCANS} scans`);
      const scan = parseScan(frame, tables, payload);
      if (typeof scan === 'string') return refused(scan);
      kept.keep(at, end);
      const walked = options.ownEncoding
        ? ownScan(bytes, end, kept)
        : await walkScan(bytes, end, frame, scan, restartInterval, kept, removed, yielder);
      if ('refused' in walked) return refused(walked.refused);
      p = walked.next;
    } else if (marker >= APP0 && marker <= APP15) {
      if (marker === APP0 && code === read.jfif) {
        if (length === JFIF_LENGTH) kept.keep(at, end);
        else {
          kept.add(rewritten(bytes.subarray(at, at + 2 + JFIF_LENGTH), (s) => s.fill(0, s.length - 2)));
          removed.push('JFIF thumbnail');
        }
      } else if (marker === APP14 && code === read.adobe) {
        if (length === ADOBE_LENGTH) kept.keep(at, end);
        else {
          kept.add(rewritten(bytes.subarray(at, at + 2 + ADOBE_LENGTH)));
          removed.push('Adobe padding');
        }
      } else if (marker === APP2 && startsWith(payload, ICC_PROFILE)) {
        kept.keep(at, end);
      } else {
        removed.push(`APP${marker - APP0}`);
      }
    } else if (marker === COM) {
      removed.push('COM');
    } else {
      return refused(`an unknown marker 0x${hex(marker)}`);
    }
  }
}

/** A copy of a segment's first bytes as a segment of their own length, changed by `edit`. */
function rewritten(head: Buffer, edit: (segment: Buffer) => void = () => undefined): Buffer {
  const out = Buffer.from(head);
  out.writeUInt16BE(out.length - 2, 2);
  edit(out);
  return out;
}

/** A DQT payload made of whole tables (precision 0 or 1, slot 0 to 3), nothing after them. */
function wholeQuantisationTables(payload: Buffer): boolean {
  let p = 0;
  if (payload.length === 0) return false;
  while (p < payload.length) {
    const precision = payload[p] >> 4;
    if (precision > 1 || (payload[p] & 15) > 3) return false;
    p += 1 + 64 * (precision + 1);
  }
  return p === payload.length;
}

function startsWith(payload: Buffer, prefix: Buffer): boolean {
  return payload.length >= prefix.length && payload.subarray(0, prefix.length).equals(prefix);
}

const hex = (n: number) => n.toString(16).padStart(2, '0');

/**
 * `jpeg` with its ICC profile segments replaced by those of `source`, byte for byte (none when
 * `source` has none). sharp drops the profile of some images it turns (CMYK ones, with its cache
 * off), so a re-encoded JPEG takes its profile from the upload itself. Null when either file's
 * header segments cannot be walked.
 */
export function withIccProfileOf(jpeg: Buffer, source: Buffer): Buffer | null {
  const theirs = iccSegments(source);
  const mine = headerSegments(jpeg);
  if (!theirs || !mine) return null;
  const isIcc = (s: Buffer) => s[1] === APP2 && startsWith(s.subarray(4), ICC_PROFILE);
  const rest = jpeg.subarray(mine.reduce((n, s) => n + s.length, 2));
  return Buffer.concat([jpeg.subarray(0, 2), ...theirs, ...mine.filter((s) => !isIcc(s)), rest]);
}

/** A segment before the first scan: where its marker's code byte is, its payload. */
interface HeaderSegment {
  code: number;
  marker: number;
  payload: Buffer;
}

/** The segments before a JPEG's first scan, found as libjpeg finds markers; null when they cannot be walked. */
function headerSegmentsRead(bytes: Buffer): HeaderSegment[] | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) return null;
  const segments: HeaderSegment[] = [];
  let p = 2;
  for (;;) {
    const code = nextMarkerCode(bytes, p);
    if (code < 0) return null;
    const marker = bytes[code];
    if (marker === SOS || marker === EOI || marker === SOI) return segments;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === TEM) {
      p = code + 1;
      continue;
    }
    if (code + 3 > bytes.length) return null;
    const end = code + 1 + bytes.readUInt16BE(code + 1);
    if (end < code + 3 || end > bytes.length) return null;
    segments.push({ code, marker, payload: bytes.subarray(code + 3, end) });
    p = end;
  }
}

/**
 * Which JFIF and Adobe segments libjpeg goes by (the code byte of each, -1 for none): each one it
 * reads before the first scan overwrites what the one before set, so the last one counts; after
 * the first scan the colour transform is decided, and they count no more.
 */
function colourSegmentsRead(bytes: Buffer): { jfif: number; adobe: number } {
  const read = { jfif: -1, adobe: -1 };
  for (const s of headerSegmentsRead(bytes) ?? []) {
    if (s.marker === APP0 && startsWith(s.payload, JFIF) && s.payload.length + 2 >= JFIF_LENGTH) read.jfif = s.code;
    if (s.marker === APP14 && startsWith(s.payload, ADOBE) && s.payload.length + 2 >= ADOBE_LENGTH) read.adobe = s.code;
  }
  return read;
}

/** The ICC profile segments of a JPEG's headers (before its first scan), whole; null when they cannot be walked. */
function iccSegments(bytes: Buffer): Buffer[] | null {
  const segments = headerSegmentsRead(bytes);
  return segments
    ? segments
        .filter((s) => s.marker === APP2 && startsWith(s.payload, ICC_PROFILE))
        .map((s) => bytes.subarray(s.code - 1, s.code + 3 + s.payload.length))
    : null;
}

/** The segments of a file written without stray bytes, from SOI to the first SOS; null when they cannot be walked. */
function headerSegments(bytes: Buffer): Buffer[] | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) return null;
  const segments: Buffer[] = [];
  let p = 2;
  while (p + 4 <= bytes.length && bytes[p] === 0xff && bytes[p + 1] !== SOS) {
    const end = p + 2 + bytes.readUInt16BE(p + 2);
    if (end > bytes.length || end < p + 4) return null;
    segments.push(bytes.subarray(p, end));
    p = end;
  }
  return p + 4 <= bytes.length && bytes[p] === 0xff ? segments : null;
}
