/**
 * JPEG's Huffman tables (ITU T.81 annex C) as libjpeg builds them for decoding: an 8-bit lookup
 * for short codes, the largest code of each length for the others; and the tables a file
 * defines, with annex K's standard ones where it defines none.
 */

export interface HuffmanTable {
  /** Indexed by the next 8 bits: `(length << 8) | symbol` for codes of at most 8 bits, 0 for longer ones. */
  fast: Uint16Array;
  /** Per code length 1 to 16, the largest code of that length; -1 when there is none. */
  maxCode: Int32Array;
  /** Per code length, what to add to a code of that length to find its symbol's index in `values`. */
  offset: Int32Array;
  values: Uint8Array;
}

/** A Huffman table from a DHT's counts per length and symbols, refused as libjpeg refuses it; null then. */
export function huffmanTable(counts: Uint8Array, values: Uint8Array, dc: boolean): HuffmanTable | null {
  if (counts.length !== 16) return null;
  let total = 0;
  for (const n of counts) total += n;
  if (total > 256 || values.length !== total) return null;
  if (dc && values.some((v) => v > 15)) return null;
  const fast = new Uint16Array(256);
  const maxCode = new Int32Array(18).fill(-1);
  const offset = new Int32Array(18);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    const n = counts[length - 1];
    // libjpeg's check: the codes of each length fit in it, the all-ones code excluded.
    if (code + n >= 1 << length) return null;
    if (n > 0) {
      offset[length] = k - code;
      for (let i = 0; i < n; i++, k++, code++) {
        if (length <= 8) {
          const first = code << (8 - length);
          fast.fill((length << 8) | values[k], first, first + (1 << (8 - length)));
        }
      }
      maxCode[length] = code - 1;
    }
    code <<= 1;
  }
  return { fast, maxCode, offset, values };
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
/**
 * The tables of ITU T.81 annex K.3, which libjpeg-turbo uses for slots 0 and 1 when a file defines
 * none (Motion-JPEG frames leave them out).
 */
const STANDARD_TABLES = {
  dc: [
    huffmanTable(hex('00010501010101010100000000000000'), hex('000102030405060708090a0b'), true)!,
    huffmanTable(hex('00030101010101010101010000000000'), hex('000102030405060708090a0b'), true)!,
  ],
  ac: [
    huffmanTable(
      hex('0002010303020403050504040000017d'),
      hex(
        '01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a' +
          '535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7' +
          'c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa',
      ),
      false,
    )!,
    huffmanTable(
      hex('00020102040403040705040400010277'),
      hex(
        '000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a' +
          '535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6' +
          'c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa',
      ),
      false,
    )!,
  ],
};

/** The Huffman tables defined so far (DHT segments may redefine them between scans). */
export class HuffmanTables {
  readonly dc: (HuffmanTable | undefined)[] = [];
  readonly ac: (HuffmanTable | undefined)[] = [];

  /** Reads a DHT segment's payload: one or more whole tables, nothing else; the problem when it is not that. */
  define(payload: Buffer): string | null {
    let p = 0;
    if (payload.length === 0) return 'an empty DHT segment';
    while (p < payload.length) {
      if (p + 17 > payload.length) return 'a DHT segment cut inside a table';
      const tc = payload[p] >> 4;
      const th = payload[p] & 15;
      if (tc > 1 || th > 3) return 'a DHT table of an unknown class or slot';
      const counts = payload.subarray(p + 1, p + 17);
      let total = 0;
      for (const n of counts) total += n;
      if (p + 17 + total > payload.length) return 'a DHT segment cut inside a table';
      const table = huffmanTable(counts, payload.subarray(p + 17, p + 17 + total), tc === 0);
      if (!table) return 'a Huffman table libjpeg refuses';
      (tc === 0 ? this.dc : this.ac)[th] = table;
      p += 17 + total;
    }
    return null;
  }

  get(kind: 'dc' | 'ac', slot: number): HuffmanTable | undefined {
    return this[kind][slot] ?? STANDARD_TABLES[kind][slot];
  }
}
