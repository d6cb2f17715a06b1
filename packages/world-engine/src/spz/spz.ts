import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * SPZ, Niantic's compressed Gaussian-splat format (github.com/nianticlabs/spz), which World Labs
 * serves its worlds in. Two containers exist: versions 1 to 3 are one gzip stream holding a
 * 16-byte header and the attribute arrays; version 4 is a plain 32-byte header followed by
 * zstd-compressed streams. We write version 3 (gzip only) and check both.
 */
export const SPZ_MAGIC = 0x5053474e; // "NGSP" read as a little-endian uint32
export const SPZ_CONTENT_TYPE = 'application/vnd.niantic.spz';
/** How far past an artifact's byte limit an SPZ file may inflate: a small file must not expand into gigabytes. */
export const SPZ_MAX_INFLATION = 8;

const LEGACY_HEADER_BYTES = 16;
const V4_HEADER_BYTES = 32;
/** Coefficients per colour channel for each spherical-harmonics degree. */
const SH_DIM = [0, 3, 8, 15, 24] as const;

export class SpzError extends Error {
  override name = 'SpzError';
}

export interface SpzInfo {
  version: number;
  points: number;
  shDegree: number;
}

function bytesPerPoint(version: number, shDegree: number): number {
  // positions 9, alpha 1, colour 3, scale 3, rotation 3 (v2) or 4 (v3+), then SH.
  return 9 + 1 + 3 + 3 + (version >= 3 ? 4 : 3) + SH_DIM[shDegree] * 3;
}

const isGzip = (bytes: Buffer) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** A gzip SPZ (versions 2 and 3), inflated once (bounded) and checked: its header and size agree. */
function inflateLegacySpz(bytes: Buffer, maxInflatedBytes: number): { raw: Buffer; info: SpzInfo } {
  let raw: Buffer;
  try {
    raw = gunzipSync(bytes, { maxOutputLength: maxInflatedBytes });
  } catch {
    throw new SpzError('not a readable gzip stream, or it inflates beyond the limit');
  }
  if (raw.length < LEGACY_HEADER_BYTES || raw.readUInt32LE(0) !== SPZ_MAGIC) throw new SpzError('no SPZ header');
  const version = raw.readUInt32LE(4);
  const points = raw.readUInt32LE(8);
  const shDegree = raw[12];
  if (version < 2 || version > 3) throw new SpzError(`unsupported gzip SPZ version ${version}`);
  if (points === 0 || points > 0x7fffffff) throw new SpzError('no points');
  if (shDegree > 3) throw new SpzError('spherical-harmonics degree out of range');
  if (raw[15] !== 0 || (raw[14] & 0x2) !== 0) throw new SpzError('unknown flags or reserved bits');
  if (raw.length !== LEGACY_HEADER_BYTES + points * bytesPerPoint(version, shDegree)) throw new SpzError('size does not match the header');
  return { raw, info: { version, points, shDegree } };
}

/**
 * Checks that `bytes` are an SPZ file whose header and size agree, without trusting its name or
 * declared type. `maxInflatedBytes` bounds the gzip inflation (a small file must not expand into
 * gigabytes). Version 4's streams are zstd: its header and table are checked, not the streams.
 */
export function inspectSpz(bytes: Buffer, maxInflatedBytes: number): SpzInfo {
  if (isGzip(bytes)) return inflateLegacySpz(bytes, maxInflatedBytes).info;
  if (bytes.length >= V4_HEADER_BYTES && bytes.readUInt32LE(0) === SPZ_MAGIC) {
    const version = bytes.readUInt32LE(4);
    const points = bytes.readUInt32LE(8);
    const shDegree = bytes[12];
    const streams = bytes[15];
    const toc = bytes.readUInt32LE(16);
    if (version !== 4) throw new SpzError(`unsupported SPZ version ${version}`);
    if (points === 0 || points > 0x7fffffff) throw new SpzError('no points');
    if (shDegree > 4) throw new SpzError('spherical-harmonics degree out of range');
    if (streams < 1 || toc < V4_HEADER_BYTES || toc + streams * 16 > bytes.length) throw new SpzError('bad table of contents');
    let end = toc + streams * 16;
    for (let i = 0; i < streams; i++) end += Number(bytes.readBigUInt64LE(toc + i * 16));
    if (end !== bytes.length) throw new SpzError('stream sizes do not match the file');
    return { version, points, shDegree };
  }
  throw new SpzError('not an SPZ file');
}

/** One Gaussian: centre, opacity (0..1), colour (linear 0..1 RGB), scale (metres per axis), rotation (x, y, z, w). */
export interface Splat {
  position: [number, number, number];
  opacity: number;
  color: [number, number, number];
  scale: [number, number, number];
  rotation: [number, number, number, number];
}

const FRACTIONAL_BITS = 12;
/** The SH degree-0 constant: colour = 0.5 + SH_C0 × dc. */
const SH_C0 = 0.28209479177387814;
const clampByte = (v: number) => Math.min(255, Math.max(0, Math.round(v)));

/**
 * Writes splats as SPZ version 3 (gzip), degree-0 colour only. Encodings follow the reference
 * library: 24-bit fixed-point positions (12 fractional bits), sigmoid opacity, colour as the SH
 * DC coefficient scaled by 0.15, log scales, and "smallest three" quaternions in 32 bits.
 */
export function writeSpz(splats: readonly Splat[]): Buffer {
  if (splats.length === 0) throw new SpzError('an SPZ file needs at least one point');
  const n = splats.length;
  const out = Buffer.alloc(LEGACY_HEADER_BYTES + n * bytesPerPoint(3, 0));
  out.writeUInt32LE(SPZ_MAGIC, 0);
  out.writeUInt32LE(3, 4);
  out.writeUInt32LE(n, 8);
  out[12] = 0; // SH degree
  out[13] = FRACTIONAL_BITS;
  out[14] = 0; // flags
  out[15] = 0;
  let o = LEGACY_HEADER_BYTES;
  for (const s of splats) {
    for (const c of s.position) {
      const fixed = Math.round(c * (1 << FRACTIONAL_BITS));
      if (fixed < -0x800000 || fixed > 0x7fffff) throw new SpzError('a position is out of the 24-bit range');
      out[o++] = fixed & 0xff;
      out[o++] = (fixed >> 8) & 0xff;
      out[o++] = (fixed >> 16) & 0xff;
    }
  }
  for (const s of splats) out[o++] = clampByte(s.opacity * 255);
  for (const s of splats) for (const c of s.color) out[o++] = clampByte(((c - 0.5) / SH_C0) * (0.15 * 255) + 127.5);
  for (const s of splats) for (const c of s.scale) out[o++] = clampByte((Math.log(Math.max(c, 1e-6)) + 10) * 16);
  for (const s of splats) {
    out.writeUInt32LE(packRotation(s.rotation), o);
    o += 4;
  }
  return gzipSync(out);
}

function packRotation(q: readonly [number, number, number, number]): number {
  const len = Math.hypot(...q) || 1;
  const n = q.map((c) => c / len);
  let largest = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(n[i]) > Math.abs(n[largest])) largest = i;
  const sign = n[largest] < 0 ? -1 : 1;
  let comp = largest;
  for (let i = 0; i < 4; i++) {
    if (i === largest) continue;
    const v = n[i] * sign;
    comp = comp * 1024 + (v < 0 ? 512 : 0) + Math.min(511, Math.round((511 * Math.abs(v)) / Math.SQRT1_2));
  }
  return comp >>> 0;
}

/**
 * Random access to the splats of a gzip SPZ (versions 2 and 3), straight from its inflated
 * bytes: a world of millions of splats is read one splat at a time, never held as objects.
 * Inverse of `writeSpz` and of the reference library's encodings; the view-dependent colour
 * (spherical harmonics beyond degree 0) is not read. Version 4 (zstd streams) has no reader
 * here: Node 20 has no zstd, and nothing but a preview needs the splats server-side.
 */
export class SpzReader {
  readonly count: number;
  private readonly fixed: number;
  private readonly alphasAt: number;
  private readonly colorsAt: number;
  private readonly scalesAt: number;
  private readonly rotationsAt: number;
  private readonly rotationBytes: number;

  private constructor(
    private readonly raw: Buffer,
    readonly version: number,
  ) {
    const n = raw.readUInt32LE(8);
    this.count = n;
    this.fixed = 1 / (1 << raw[13]);
    this.alphasAt = LEGACY_HEADER_BYTES + n * 9;
    this.colorsAt = this.alphasAt + n;
    this.scalesAt = this.colorsAt + n * 3;
    this.rotationsAt = this.scalesAt + n * 3;
    this.rotationBytes = version >= 3 ? 4 : 3;
  }

  /** Checks the file as `inspectSpz` does while inflating it, once (bounded by `maxInflatedBytes`). */
  static open(bytes: Buffer, maxInflatedBytes: number): SpzReader {
    if (!isGzip(bytes)) throw new SpzError(`no reader for SPZ version ${inspectSpz(bytes, maxInflatedBytes).version}`);
    const { raw, info } = inflateLegacySpz(bytes, maxInflatedBytes);
    return new SpzReader(raw, info.version);
  }

  /** Writes splat `i`'s centre into `out` at `at`. */
  position(i: number, out: Float32Array | number[], at = 0): void {
    const p = LEGACY_HEADER_BYTES + i * 9;
    const raw = this.raw;
    for (let k = 0; k < 3; k++) {
      const q = p + k * 3;
      out[at + k] = (((raw[q] | (raw[q + 1] << 8) | (raw[q + 2] << 16)) << 8) >> 8) * this.fixed;
    }
  }

  splat(i: number): Splat {
    const out: Splat = { position: [0, 0, 0], opacity: 0, color: [0, 0, 0], scale: [0, 0, 0], rotation: [0, 0, 0, 1] };
    this.read(i, out);
    return out;
  }

  /** Splat `i` into an existing object: reading a whole world allocates nothing per splat. */
  read(i: number, out: Splat): void {
    const raw = this.raw;
    this.position(i, out.position);
    out.opacity = raw[this.alphasAt + i] / 255;
    const c = this.colorsAt + i * 3;
    const sc = this.scalesAt + i * 3;
    for (let k = 0; k < 3; k++) {
      out.color[k] = 0.5 + SH_C0 * ((raw[c + k] - 127.5) / (0.15 * 255));
      out.scale[k] = Math.exp(raw[sc + k] / 16 - 10);
    }
    const r = this.rotationsAt + i * this.rotationBytes;
    if (this.version >= 3) unpackRotation(raw.readUInt32LE(r), out.rotation);
    else unpackRotationV2(raw, r, out.rotation);
  }
}

/** Version 3's "smallest three": the largest component's index, then three signed 9-bit magnitudes. */
function unpackRotation(packed: number, q: number[]): void {
  const largest = packed >>> 30;
  let comp = packed;
  let sum = 0;
  for (let i = 3; i >= 0; i--) {
    if (i === largest) continue;
    const magnitude = comp & 511;
    const negative = (comp >>> 9) & 1;
    comp >>>= 10;
    const v = (Math.SQRT1_2 * magnitude) / 511;
    q[i] = negative ? -v : v;
    sum += v * v;
  }
  q[largest] = Math.sqrt(Math.max(0, 1 - sum));
}

/** Version 2: x, y, z as bytes over [−1, 1]; w is the non-negative rest of a unit quaternion. */
function unpackRotationV2(raw: Buffer, at: number, q: number[]): void {
  const x = raw[at] / 127.5 - 1;
  const y = raw[at + 1] / 127.5 - 1;
  const z = raw[at + 2] / 127.5 - 1;
  q[0] = x;
  q[1] = y;
  q[2] = z;
  q[3] = Math.sqrt(Math.max(0, 1 - x * x - y * y - z * z));
}

/** Reads back a version-3 degree-0 SPZ written by `writeSpz` (tests, the fakes): positions and colours. */
export function readSpzPoints(bytes: Buffer): { position: [number, number, number]; color: [number, number, number] }[] {
  const reader = SpzReader.open(bytes, 1 << 30);
  return Array.from({ length: reader.count }, (_, i) => {
    const { position, color } = reader.splat(i);
    return { position, color };
  });
}
