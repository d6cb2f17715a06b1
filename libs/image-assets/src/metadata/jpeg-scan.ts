import { MAX_PIXELS, MAX_SIDE_PX } from '../image-rules';
import { HuffmanTable, HuffmanTables } from './jpeg-huffman';
import { KeptRanges } from './strip-result';
import { Yielder } from './yielding';

/**
 * The entropy-coded data of JPEG scans, walked as libjpeg decodes it (ITU T.81 annexes F and G,
 * Huffman coding, sequential and progressive) without computing a single coefficient: only how
 * many bits each code takes, so the walk knows where each scan's data really ends. What follows
 * that end before the next marker (libjpeg's "extraneous bytes", which it skips with a warning)
 * carries nothing a decoder shows, so it goes. Data that does not decode (a code no table
 * defines, a restart marker out of order, a scan that runs into a marker or the end of the file)
 * is refused: libjpeg would fill the missing blocks with grey.
 */

/** More scans than any encoder writes (libjpeg's progressive scripts use up to 10 per 3 components); each costs a pass over its blocks. */
export const MAX_SCANS = 100;
/** At most this many blocks in one MCU (libjpeg's limit). */
const MAX_BLOCKS_IN_MCU = 10;

export interface FrameComponent {
  id: number;
  h: number;
  v: number;
  /** The component's own size in blocks, what a scan of it alone covers. */
  widthInBlocks: number;
  heightInBlocks: number;
  /** Its blocks in whole MCUs, what an interleaved scan covers. */
  blocksPerLine: number;
  blocksPerColumn: number;
  /** Progressive frames: per block, which coefficients (in zig-zag order) are non-zero so far, as two 32-bit words. */
  nonzero: Uint32Array | null;
}

export interface Frame {
  progressive: boolean;
  components: FrameComponent[];
  hMax: number;
  vMax: number;
  mcusPerLine: number;
  mcusPerColumn: number;
}

/** A frame header (SOF0, SOF1 or SOF2) as libjpeg reads it; the problem when it is not one. */
export function parseFrame(progressive: boolean, payload: Buffer): Frame | string {
  if (payload.length < 6) return 'a frame header cut short';
  const precision = payload[0];
  const height = payload.readUInt16BE(1);
  const width = payload.readUInt16BE(3);
  const count = payload[5];
  if (payload.length !== 6 + 3 * count) return 'a frame header of the wrong length';
  if (precision !== 8 && precision !== 12) return 'a sample precision other than 8 or 12 bits';
  // A height of 0 is left to a DNL segment, which libjpeg does not read.
  if (width === 0 || height === 0) return 'a frame without a width or a height';
  if (width > MAX_SIDE_PX || height > MAX_SIDE_PX || width * height > MAX_PIXELS) return 'a frame larger than accepted';
  if (count < 1 || count > 4) return 'a frame of other than 1 to 4 components';
  const raw: { id: number; h: number; v: number }[] = [];
  for (let i = 0; i < count; i++) {
    const at = 6 + 3 * i;
    const id = payload[at];
    const h = payload[at + 1] >> 4;
    const v = payload[at + 1] & 15;
    if (h < 1 || h > 4 || v < 1 || v > 4 || payload[at + 2] > 3) return 'a component with bad sampling factors or table';
    if (raw.some((c) => c.id === id)) return 'two components with the same id';
    raw.push({ id, h, v });
  }
  const hMax = Math.max(...raw.map((c) => c.h));
  const vMax = Math.max(...raw.map((c) => c.v));
  const mcusPerLine = Math.ceil(width / (8 * hMax));
  const mcusPerColumn = Math.ceil(height / (8 * vMax));
  return {
    progressive,
    hMax,
    vMax,
    mcusPerLine,
    mcusPerColumn,
    components: raw.map(({ id, h, v }) => ({
      id,
      h,
      v,
      widthInBlocks: Math.ceil(Math.ceil((width * h) / hMax) / 8),
      heightInBlocks: Math.ceil(Math.ceil((height * v) / vMax) / 8),
      blocksPerLine: mcusPerLine * h,
      blocksPerColumn: mcusPerColumn * v,
      nonzero: null,
    })),
  };
}

interface ScanComponent {
  component: FrameComponent;
  dc: HuffmanTable | null;
  ac: HuffmanTable | null;
}

export interface Scan {
  components: ScanComponent[];
  ss: number;
  se: number;
  ah: number;
  al: number;
}

/** A scan header (SOS) with the tables it names, checked as libjpeg checks it; the problem when it is wrong. */
export function parseScan(frame: Frame, tables: HuffmanTables, payload: Buffer): Scan | string {
  const count = payload[0] ?? 0;
  if (count < 1 || count > 4 || payload.length !== 1 + 2 * count + 3) return 'a scan header of the wrong length';
  const [ss, se, a] = [payload[1 + 2 * count], payload[2 + 2 * count], payload[3 + 2 * count]];
  const ah = a >> 4;
  const al = a & 15;
  const dcScan = ss === 0;
  if (!frame.progressive) {
    if (ss !== 0 || se !== 63 || ah !== 0 || al !== 0) return 'a sequential scan with progressive parameters';
  } else {
    const bandOk = dcScan ? se === 0 : se >= ss && se <= 63 && count === 1;
    if (!bandOk || ah > 13 || al > 13 || (ah !== 0 && al !== ah - 1)) return 'a progressive scan with bad parameters';
  }
  const components: ScanComponent[] = [];
  let blocks = 0;
  for (let i = 0; i < count; i++) {
    const id = payload[1 + 2 * i];
    const component = frame.components.find((c) => c.id === id);
    if (!component || components.some((c) => c.component === component)) return 'a scan of an unknown or repeated component';
    const td = payload[2 + 2 * i] >> 4;
    const ta = payload[2 + 2 * i] & 15;
    if (td > 3 || ta > 3) return 'a scan naming a table slot over 3';
    // Tables a scan does not use need not exist: a DC refinement reads raw bits, AC scans no DC table.
    const needsDc = !frame.progressive || (dcScan && ah === 0);
    const needsAc = !frame.progressive || !dcScan;
    const dc = needsDc ? tables.get('dc', td) : undefined;
    const ac = needsAc ? tables.get('ac', ta) : undefined;
    if ((needsDc && !dc) || (needsAc && !ac)) return 'a scan naming a Huffman table never defined';
    components.push({ component, dc: dc ?? null, ac: ac ?? null });
    blocks += component.h * component.v;
  }
  if (count > 1 && blocks > MAX_BLOCKS_IN_MCU) return 'an MCU of more than 10 blocks';
  return { components, ss, se, ah, al };
}

const OVERRUN = -1;
const BAD_CODE = -2;

/** Reads the bits of entropy-coded data: stuffed zeros skipped, stopped by a marker or the file's end. */
class EntropyReader {
  /** The bits read and not yet consumed: the low `bits` bits of `acc` (at most 30). */
  private acc = 0;
  private bits = 0;
  private pos = 0;
  private start = 0;
  /** The next 0xFF at or after `pos` (the file's length when there is none): the bytes before it are plain data. */
  private nextFF = 0;
  private stopped = false;

  constructor(private readonly bytes: Buffer) {}

  reset(at: number): void {
    this.acc = this.bits = 0;
    this.pos = this.start = at;
    this.stopped = false;
    this.findFF();
  }

  private findFF(): void {
    const i = this.bytes.indexOf(0xff, this.pos);
    this.nextFF = i < 0 ? this.bytes.length : i;
  }

  private fill(): void {
    const b = this.bytes;
    let acc = this.acc;
    let bits = this.bits;
    let p = this.pos;
    while (bits <= 22) {
      if (p < this.nextFF) {
        acc = (acc << 8) | b[p++];
        bits += 8;
        continue;
      }
      if (this.stopped || p >= b.length) {
        this.stopped = true;
        break;
      }
      // 0xFF then 0x00 is a data byte; fill bytes (more 0xFF) may come first. Anything else is a marker.
      let q = p + 1;
      while (q < b.length && b[q] === 0xff) q++;
      if (q >= b.length || b[q] !== 0x00) {
        this.stopped = true;
        break;
      }
      acc = (acc << 8) | 0xff;
      bits += 8;
      p = q + 1;
      this.pos = p;
      this.findFF();
    }
    this.acc = acc;
    this.bits = bits;
    this.pos = p;
  }

  /** Consumes `n` (at most 16) bits; false when the data has fewer. */
  skip(n: number): boolean {
    if (this.bits < n) {
      this.fill();
      if (this.bits < n) return false;
    }
    this.bits -= n;
    this.acc &= (1 << this.bits) - 1;
    return true;
  }

  /** Consumes `n` (at most 16) bits and gives their value, or OVERRUN. */
  value(n: number): number {
    if (this.bits < n) {
      this.fill();
      if (this.bits < n) return OVERRUN;
    }
    this.bits -= n;
    const v = this.acc >>> this.bits;
    this.acc &= (1 << this.bits) - 1;
    return v;
  }

  /**
   * Decodes one Huffman code and gives its symbol, or OVERRUN or BAD_CODE; with `extra`, also
   * consumes the bits that follow the code, as many as the symbol's low 4 bits say (a DC
   * difference's, an AC coefficient's): the hot path of every scan.
   */
  decode(t: HuffmanTable, extra: boolean): number {
    if (this.bits < 16) this.fill();
    const bits = this.bits;
    const acc = this.acc;
    const e = t.fast[bits >= 8 ? (acc >>> (bits - 8)) & 0xff : (acc << (8 - bits)) & 0xff];
    let length: number;
    let symbol: number;
    if (e !== 0) {
      length = e >> 8;
      symbol = e & 0xff;
    } else {
      const code16 = bits >= 16 ? (acc >>> (bits - 16)) & 0xffff : (acc << (16 - bits)) & 0xffff;
      length = 9;
      while (length <= 16 && code16 >>> (16 - length) > t.maxCode[length]) length++;
      if (length > 16) return BAD_CODE;
      symbol = t.values[(code16 >>> (16 - length)) + t.offset[length]];
    }
    const total = extra ? length + (symbol & 15) : length;
    if (total <= bits) {
      this.bits = bits - total;
      this.acc = acc & ((1 << this.bits) - 1);
      return symbol;
    }
    if (!this.skip(length) || (extra && !this.skip(symbol & 15))) return OVERRUN;
    return symbol;
  }

  /**
   * Where the data read so far ends in the file: just after the last byte a consumed bit came
   * from (its stuffed zero included). The bytes read but not consumed are stepped back over.
   */
  consumedEnd(): number {
    let p = this.pos;
    for (let unread = this.bits >> 3; unread > 0 && p > this.start; unread--) {
      p -= p - 2 >= this.start && this.bytes[p - 1] === 0x00 && this.bytes[p - 2] === 0xff ? 2 : 1;
    }
    return p;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A 32-bit mask of the bits from `from` to `to` (0 to 31), inclusive; 0 when `to` < `from`. */
function mask(from: number, to: number): number {
  if (to < from) return 0;
  return to - from === 31 ? -1 : ((1 << (to - from + 1)) - 1) << from;
}

/** How many bits of a 64-bit mask (two words) are set from `from` to `to`, inclusive. */
function bitsBetween(lo: number, hi: number, from: number, to: number): number {
  const inLo = from <= 31 ? lo & mask(from, Math.min(to, 31)) : 0;
  const inHi = to >= 32 ? hi & mask(Math.max(from, 32) - 32, to - 32) : 0;
  return popcount(inLo) + popcount(inHi);
}

/** Decodes the blocks of one scan, as libjpeg's decode_mcu functions do, counting bits only. */
class ScanDecoder {
  /** Blocks left in the current end-of-band run (progressive AC scans). */
  eobrun = 0;
  problem: string | null = null;

  constructor(
    private readonly r: EntropyReader,
    private readonly scan: Scan,
  ) {}

  private fail(code: number): false {
    this.problem = code === BAD_CODE ? 'a Huffman code that no table defines' : 'scan data that ends before its last block';
    return false;
  }

  private skipBits(n: number): boolean {
    for (; n > 16; n -= 16) if (!this.r.skip(16)) return false;
    return this.r.skip(n);
  }

  /** A whole block of a sequential scan (F.2.2). */
  sequential(c: ScanComponent): boolean {
    const r = this.r;
    const s = r.decode(c.dc!, true);
    if (s < 0) return this.fail(s);
    const ac = c.ac!;
    for (let k = 1; k < 64; k++) {
      const rs = r.decode(ac, true);
      if (rs < 0) return this.fail(rs);
      if (rs & 15) k += rs >> 4;
      else if (rs === 0xf0) k += 15;
      else break;
    }
    return true;
  }

  /** The DC coefficient's first bits (G.1.2.1). */
  dcFirst(c: ScanComponent): boolean {
    const s = this.r.decode(c.dc!, true);
    return s >= 0 || this.fail(s);
  }

  /** One more bit of the DC coefficient. */
  dcRefine(): boolean {
    return this.r.skip(1) || this.fail(OVERRUN);
  }

  /** The first bits of a band of AC coefficients (G.1.2.2), noting which become non-zero. */
  acFirst(c: ScanComponent, nonzero: Uint32Array, at: number): boolean {
    if (this.eobrun > 0) {
      this.eobrun--;
      return true;
    }
    const r = this.r;
    let lo = nonzero[at];
    let hi = nonzero[at + 1];
    for (let k = this.scan.ss; k <= this.scan.se; k++) {
      const rs = r.decode(c.ac!, true);
      if (rs < 0) return this.fail(rs);
      const run = rs >> 4;
      const size = rs & 15;
      if (size) {
        k += run;
        // libjpeg writes a coefficient past the band's end (corrupt data) at position 63.
        const z = Math.min(k, 63);
        if (z < 32) lo |= 1 << z;
        else hi |= 1 << (z - 32);
      } else if (run === 15) k += 15;
      else {
        let eob = 1 << run;
        if (run) {
          const v = r.value(run);
          if (v < 0) return this.fail(OVERRUN);
          eob += v;
        }
        this.eobrun = eob - 1;
        break;
      }
    }
    nonzero[at] = lo;
    nonzero[at + 1] = hi;
    return true;
  }

  /**
   * One more bit of a band of AC coefficients (G.1.2.3): a correction bit for each coefficient
   * already non-zero, and new ones among the zeros (each symbol's run counts zeros only).
   */
  acRefine(c: ScanComponent, nonzero: Uint32Array, at: number): boolean {
    const r = this.r;
    const { ss, se } = this.scan;
    let lo = nonzero[at];
    let hi = nonzero[at + 1];
    let k = ss;
    if (this.eobrun === 0) {
      for (; k <= se; k++) {
        const rs = r.decode(c.ac!, false);
        if (rs < 0) return this.fail(rs);
        const run = rs >> 4;
        const size = rs & 15;
        if (size) {
          if (size !== 1) {
            this.problem = 'a refinement code of a size other than 1';
            return false;
          }
          if (!r.skip(1)) return this.fail(OVERRUN);
        } else if (run !== 15) {
          let eob = 1 << run;
          if (run) {
            const v = r.value(run);
            if (v < 0) return this.fail(OVERRUN);
            eob += v;
          }
          this.eobrun = eob;
          break;
        }
        // Past `run` zeros to the next one (libjpeg's do-while), a correction bit for each non-zero on the way.
        let corrections = 0;
        let zeros = run;
        for (; k <= se; k++) {
          if ((k < 32 ? lo >>> k : hi >>> (k - 32)) & 1) corrections++;
          else if (--zeros < 0) break;
        }
        if (!this.skipBits(corrections)) return this.fail(OVERRUN);
        if (size) {
          // libjpeg writes a coefficient past the band's end (corrupt data) at position 63.
          const z = Math.min(k, 63);
          if (z < 32) lo |= 1 << z;
          else hi |= 1 << (z - 32);
        }
      }
    }
    if (this.eobrun > 0) {
      // The rest of the band: one correction bit for each coefficient already non-zero.
      if (k <= se && !this.skipBits(bitsBetween(lo, hi, k, se))) return this.fail(OVERRUN);
      this.eobrun--;
    }
    nonzero[at] = lo;
    nonzero[at + 1] = hi;
    return true;
  }
}

export type ScanWalk = { next: number } | { refused: string };

/**
 * Walks the entropy-coded data of `scan`, which starts at `from` (just after its SOS segment):
 * keeps, in `kept`, the data of each restart interval up to where its last block ends, and each
 * restart marker; whatever else lies before a marker goes. `next` is where the marker after the
 * scan starts (its last 0xFF).
 */
export async function walkScan(
  bytes: Buffer,
  from: number,
  frame: Frame,
  scan: Scan,
  restartInterval: number,
  kept: KeptRanges,
  removed: string[],
  yielder: Yielder,
): Promise<ScanWalk> {
  const reader = new EntropyReader(bytes);
  const decoder = new ScanDecoder(reader, scan);
  const single = scan.components.length === 1;
  const only = scan.components[0];
  const mcus = single ? only.component.widthInBlocks * only.component.heightInBlocks : frame.mcusPerLine * frame.mcusPerColumn;
  const acScan = frame.progressive && scan.ss > 0;
  if (acScan) only.component.nonzero ??= new Uint32Array(2 * only.component.blocksPerLine * only.component.blocksPerColumn);

  const block = (c: ScanComponent, row: number, column: number): boolean => {
    if (!frame.progressive) return decoder.sequential(c);
    if (!acScan) return scan.ah === 0 ? decoder.dcFirst(c) : decoder.dcRefine();
    const at = 2 * (row * c.component.blocksPerLine + column);
    return scan.ah === 0 ? decoder.acFirst(c, c.component.nonzero!, at) : decoder.acRefine(c, c.component.nonzero!, at);
  };

  /**
   * Keeps the data from `start` up to where its last block ends, and finds the marker after it:
   * its code's index, or -1. Fill bytes (0xFF) may come before a marker; anything else there is
   * data no decoder reads.
   */
  const endOfData = (start: number): number => {
    const end = reader.consumedEnd();
    const code = nextMarkerCode(bytes, end);
    if (code < 0) return -1;
    if (isFill(bytes, end, code - 1)) kept.keep(start, code - 1);
    else {
      kept.keep(start, end);
      removed.push('data after a scan');
    }
    return code;
  };

  let intervalStart = from;
  let restarts = 0;
  reader.reset(from);
  for (let mcu = 0; mcu < mcus; mcu++) {
    if (restartInterval > 0 && mcu > 0 && mcu % restartInterval === 0) {
      const code = endOfData(intervalStart);
      if (code < 0) return { refused: 'scan data cut short' };
      if (bytes[code] !== 0xd0 + (restarts & 7)) return { refused: 'a restart marker missing or out of order' };
      kept.keep(code - 1, code + 1);
      restarts++;
      intervalStart = code + 1;
      reader.reset(intervalStart);
      decoder.eobrun = 0;
    }
    if (single) {
      const row = Math.floor(mcu / only.component.widthInBlocks);
      if (!block(only, row, mcu - row * only.component.widthInBlocks)) return { refused: decoder.problem! };
    } else {
      const mcuRow = Math.floor(mcu / frame.mcusPerLine);
      const mcuColumn = mcu - mcuRow * frame.mcusPerLine;
      for (const c of scan.components) {
        const { h, v } = c.component;
        for (let y = 0; y < v; y++)
          for (let x = 0; x < h; x++) if (!block(c, mcuRow * v + y, mcuColumn * h + x)) return { refused: decoder.problem! };
      }
    }
    if (yielder.due()) await yielder.yield();
  }
  const code = endOfData(intervalStart);
  if (code < 0) return { refused: 'the file ends after a scan, before its EOI marker' };
  return { next: code - 1 };
}

/**
 * The entropy-coded data of a scan our own encoder wrote, kept up to the first marker that is
 * neither a stuffed 0xFF00 nor a restart marker, without decoding it: a pass over its bytes.
 */
export function ownScan(bytes: Buffer, from: number, kept: KeptRanges): ScanWalk {
  let i = from;
  for (;;) {
    i = bytes.indexOf(0xff, i);
    if (i < 0 || i + 1 >= bytes.length) return { refused: 'the file ends after a scan, before its EOI marker' };
    const next = bytes[i + 1];
    if (next === 0x00 || next === 0xff || (next >= 0xd0 && next <= 0xd7)) i += next === 0xff ? 1 : 2;
    else break;
  }
  kept.keep(from, i);
  return { next: i };
}

/** Whether bytes[from, to) are all fill bytes (0xFF); true when there are none. */
function isFill(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0xff) return false;
  return true;
}

/** The index of the next marker's code byte at or after `from` (libjpeg's next_marker), or -1. */
export function nextMarkerCode(bytes: Buffer, from: number): number {
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
