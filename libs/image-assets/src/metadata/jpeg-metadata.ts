import { KeptRanges, refused, StripOptions, StripResult } from './strip-result';

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const APP0 = 0xe0;
const APP2 = 0xe2;
const APP14 = 0xee;
const APP15 = 0xef;
const COM = 0xfe;

const JFIF = Buffer.from('JFIF\0', 'latin1');
const ICC_PROFILE = Buffer.from('ICC_PROFILE\0', 'latin1');
const ADOBE = Buffer.from('Adobe', 'latin1');
/** A JFIF APP0 segment without a thumbnail: length 16 (identifier, version, units, densities, 0×0). */
const JFIF_LENGTH = 16;

/**
 * Removes a JPEG's metadata without touching its compressed image data: every APPn segment but
 * the three that change how pixels decode or look — JFIF (APP0, its thumbnail dropped), the ICC
 * profile (APP2 `ICC_PROFILE`, all its chunks) and Adobe's colour transform (APP14) — and every
 * comment (COM). So EXIF and XMP (APP1), MPF (APP2), IPTC (APP13 `Photoshop 3.0`), JUMBF/C2PA
 * (APP11) and vendors' blocks go. Whatever follows the end-of-image marker goes too: MPF's
 * secondary images and gain maps live there, with EXIF of their own.
 *
 * Markers are found as libjpeg finds them (stray bytes and fill bytes before a marker skipped),
 * so what is kept is what the decoder read. A structure it cannot walk (no SOI, a length running
 * past the end, an unknown marker, a second SOI) is refused; a file cut short inside its image
 * data is kept as it is, for the decoder to judge.
 */
export function stripJpegMetadata(bytes: Buffer, options: StripOptions = {}): StripResult {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) return refused('no SOI marker');
  const kept = new KeptRanges(bytes, options.inPlace);
  const removed: string[] = [];
  kept.keep(0, 2);
  let p = 2;
  for (;;) {
    const code = nextMarker(bytes, p);
    if (code < 0) return refused('the file ends outside image data, before its EOI marker');
    if (code - 1 > p) removed.push('stray bytes');
    const marker = bytes[code];
    const at = code - 1;
    if (marker === EOI) {
      kept.keep(at, code + 1);
      if (code + 1 < bytes.length) removed.push('data after EOI');
      return { ok: true, bytes: kept.result(), removed };
    }
    if (marker === SOI) return refused('a second SOI marker');
    if (isStandalone(marker)) {
      kept.keep(at, code + 1);
      p = code + 1;
      continue;
    }
    if (code + 3 > bytes.length) return refused('a marker without its length');
    const length = bytes.readUInt16BE(code + 1);
    const end = code + 1 + length;
    if (length < 2 || end > bytes.length) return refused(`a segment length past the end (marker 0x${hex(marker)})`);
    const payload = bytes.subarray(code + 3, end);

    if (marker === SOS) {
      // The scan's compressed data runs to the next marker that is neither a stuffed 0xFF00
      // nor a restart marker; a file that ends inside it is kept whole.
      const next = endOfEntropyData(bytes, end);
      if (next < 0) {
        kept.keep(at, bytes.length);
        return { ok: true, bytes: kept.result(), removed };
      }
      kept.keep(at, next);
      p = next;
      continue;
    }
    if (marker >= APP0 && marker <= APP15) {
      if (marker === APP0 && startsWith(payload, JFIF) && length >= JFIF_LENGTH) {
        if (length === JFIF_LENGTH) kept.keep(at, end);
        else {
          kept.add(jfifWithoutThumbnail(bytes.subarray(at, at + 2 + JFIF_LENGTH)));
          removed.push('JFIF thumbnail');
        }
      } else if ((marker === APP2 && startsWith(payload, ICC_PROFILE)) || (marker === APP14 && startsWith(payload, ADOBE))) {
        kept.keep(at, end);
      } else {
        removed.push(`APP${marker - APP0}`);
      }
      p = end;
      continue;
    }
    if (marker === COM) {
      removed.push('COM');
      p = end;
      continue;
    }
    if (!isImageSegment(marker)) return refused(`an unknown marker 0x${hex(marker)}`);
    kept.keep(at, end);
    p = end;
  }
}

/** The index of the next marker's code byte at or after `from` (libjpeg's next_marker), or -1. */
function nextMarker(bytes: Buffer, from: number): number {
  let i = from;
  for (;;) {
    while (i < bytes.length && bytes[i] !== 0xff) i++;
    while (i < bytes.length && bytes[i] === 0xff) i++;
    if (i >= bytes.length) return -1;
    // 0xFF00 outside a scan is not a marker: skipped as stray data, as libjpeg does.
    if (bytes[i] !== 0x00) return i;
    i++;
  }
}

/** The index of the 0xFF that starts the first marker after a scan's compressed data, or -1. */
function endOfEntropyData(bytes: Buffer, from: number): number {
  let i = from;
  for (;;) {
    i = bytes.indexOf(0xff, i);
    if (i < 0 || i + 1 >= bytes.length) return -1;
    const next = bytes[i + 1];
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) i += 2;
    // A fill byte: the marker is the last of a run of 0xFF.
    else if (next === 0xff) i += 1;
    else return i;
  }
}

/** Markers without a length: restart markers and TEM. */
function isStandalone(marker: number): boolean {
  return (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;
}

/** The segments that describe the image data: SOFn, DHT, DAC, DQT, DNL, DRI, DHP, EXP. */
function isImageSegment(marker: number): boolean {
  return (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8) || (marker >= 0xdb && marker <= 0xdf);
}

function jfifWithoutThumbnail(head: Buffer): Buffer {
  const out = Buffer.from(head);
  out.writeUInt16BE(JFIF_LENGTH, 2);
  out[2 + JFIF_LENGTH - 2] = 0;
  out[2 + JFIF_LENGTH - 1] = 0;
  return out;
}

function startsWith(payload: Buffer, prefix: Buffer): boolean {
  return payload.length >= prefix.length && payload.subarray(0, prefix.length).equals(prefix);
}

const hex = (n: number) => n.toString(16).padStart(2, '0');

/**
 * `jpeg` with its ICC profile segments replaced by those of `source`, byte for byte (none when
 * `source` has none). sharp drops the profile of some images it turns (CMYK ones, with its cache
 * off), so a re-encoded JPEG takes its profile from the upload itself. Null when either file's
 * segments cannot be walked.
 */
export function withIccProfileOf(jpeg: Buffer, source: Buffer): Buffer | null {
  // Stripped, the source's headers are plain segments (no stray or fill bytes) to pick from.
  const stripped = stripJpegMetadata(source);
  const theirs = stripped.ok ? headerSegments(stripped.bytes) : null;
  const mine = headerSegments(jpeg);
  if (!theirs || !mine) return null;
  const isIcc = (s: Buffer) => s[1] === APP2 && startsWith(s.subarray(4), ICC_PROFILE);
  const rest = jpeg.subarray(mine.reduce((n, s) => n + s.length, 2));
  return Buffer.concat([jpeg.subarray(0, 2), ...theirs.filter(isIcc), ...mine.filter((s) => !isIcc(s)), rest]);
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
