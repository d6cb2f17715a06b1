import { Splat, SpzReader } from '@scene-studio/world-engine';

/**
 * A coarse copy of a splat world, a few thousand splats where the world has hundreds of
 * thousands: the studio draws it first, so a world is on screen in about a second even where
 * drawing every splat takes many (software WebGL draws ~50 000 splats a second), and swaps in
 * the whole world once it has decoded (docs/embed.md, "Splat worlds").
 *
 * The world is cut into cubic cells, the cell size found so that at most `target` cells hold a
 * splat; each cell's splats become one, merged as level-of-detail splat trees merge them: the
 * importance-weighted mean of centres and colours, and the Gaussian whose covariance is the
 * weighted sum of the members' covariances and their spread about the mean, so the merged splat
 * covers what its members covered. Importance is opacity times the splat's apparent area.
 */
export function previewSplats(reader: SpzReader, target: number): Splat[] {
  const n = reader.count;
  if (target < 1) throw new RangeError('a preview needs at least one splat');
  if (n <= target) return Array.from({ length: n }, (_, i) => reader.splat(i));
  const positions = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) reader.position(i, positions, i * 3);

  const grid = new Grid(positions);
  const { groupOf, groups } = grid.group(grid.cellSizeFor(target));
  // One pass over the splats, one accumulator per cell (no object per splat: a world may have
  // millions); a cell of one splat keeps that splat exactly.
  const merged = Array.from({ length: groups }, () => new MergedSplat());
  const first = new Uint32Array(groups);
  const s = reader.splat(0);
  for (let i = 0; i < n; i++) {
    reader.read(i, s);
    if (merged[groupOf[i]].add(s) === 1) first[groupOf[i]] = i;
  }
  return merged.map((m, g) => (m.members === 1 ? reader.splat(first[g]) : m.splat()));
}

/**
 * Dense ids for cell keys (non-negative integers below 2⁵³), by open addressing: counting the
 * cells a size leaves is the inner loop of the size search, and a sort there cost seconds on a
 * world of 500 000 splats where this costs tens of milliseconds.
 */
class CellIndex {
  private readonly keys: Float64Array;
  private readonly ids: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  size = 0;

  constructor(capacity: number) {
    let slots = 1024;
    while (slots < capacity * 2) slots *= 2;
    this.keys = new Float64Array(slots);
    this.ids = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
    this.shift = 32 - Math.log2(slots);
  }

  /** Forgets every key: the size search reuses one index instead of allocating one per step. */
  clear(): void {
    this.ids.fill(-1);
    this.size = 0;
  }

  /** The key's id, given on first sight in order 0, 1, 2… */
  idOf(key: number): number {
    const hi = Math.floor(key / 0x100000000);
    // Fibonacci hashing: the product's high bits, which every input bit reaches.
    let slot = Math.imul((key >>> 0) ^ Math.imul(hi, 0x85ebca77), 0x9e3779b1) >>> this.shift;
    for (;;) {
      const id = this.ids[slot];
      if (id === -1) {
        this.keys[slot] = key;
        this.ids[slot] = this.size;
        return this.size++;
      }
      if (this.keys[slot] === key) return id;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** Cells over the world's bounds; a cell's key is its index, unique within one cell size. */
class Grid {
  private readonly min = [Infinity, Infinity, Infinity];
  private readonly extent = [0, 0, 0];
  /** The size search's scratch: one key buffer and one index, whatever the number of steps. */
  private scratch: { keys: Float64Array; index: CellIndex } | null = null;

  constructor(private readonly positions: Float32Array) {
    const max = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < positions.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        const v = positions[i + k];
        if (v < this.min[k]) this.min[k] = v;
        if (v > max[k]) max[k] = v;
      }
    }
    for (let k = 0; k < 3; k++) this.extent[k] = Math.max(max[k] - this.min[k], 1e-3);
  }

  /**
   * The smallest cell size (to 2 %) that leaves at most `target` occupied cells: fewer cells
   * than that wastes the preview's budget, more breaks it. Bisection on a log scale, between a
   * size where every splat may have its own cell and one that holds the whole world.
   */
  cellSizeFor(target: number): number {
    let hi = Math.max(...this.extent);
    let lo = hi / Math.cbrt(this.positions.length / 3) / 64;
    while (hi / lo > 1.02) {
      const mid = Math.sqrt(lo * hi);
      if (!this.occupiesMoreThan(mid, target)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /** Each splat's cell, as dense ids in order of first sight, for cells of `size`. */
  group(size: number): { groupOf: Uint32Array; groups: number } {
    const n = this.positions.length / 3;
    const { keys, index } = this.cells(size);
    const groupOf = new Uint32Array(n);
    for (let i = 0; i < n; i++) groupOf[i] = index.idOf(keys[i]);
    // The search is over: its buffers (tens of bytes a splat) need not outlive it.
    this.scratch = null;
    return { groupOf, groups: index.size };
  }

  /** Whether cells of `size` leave more than `limit` occupied; stops counting once they do. */
  private occupiesMoreThan(size: number, limit: number): boolean {
    const { keys, index } = this.cells(size);
    for (let i = 0; i < keys.length; i++) if (index.idOf(keys[i]) >= limit) return true;
    return false;
  }

  /** The cell keys for `size` in the scratch buffer, and the scratch index, cleared. */
  private cells(size: number): { keys: Float64Array; index: CellIndex } {
    const n = this.positions.length / 3;
    this.scratch ??= { keys: new Float64Array(n), index: new CellIndex(n) };
    const { keys, index } = this.scratch;
    const cells = this.extent.map((e) => Math.floor(e / size) + 1);
    for (let i = 0; i < n; i++) {
      const ix = Math.floor((this.positions[i * 3] - this.min[0]) / size);
      const iy = Math.floor((this.positions[i * 3 + 1] - this.min[1]) / size);
      const iz = Math.floor((this.positions[i * 3 + 2] - this.min[2]) / size);
      keys[i] = ix + cells[0] * (iy + cells[1] * iz);
    }
    index.clear();
    return this.scratch;
  }
}

type Mat3 = [number, number, number, number, number, number, number, number, number];

/** How much a splat shows: its opacity times its mean cross-section (a disc seen edge-on still counts). */
function importance(s: Splat): number {
  const [a, b, c] = s.scale;
  return s.opacity * ((a * b + b * c + c * a) / 3) + 1e-12;
}

/** One splat standing for several (see `previewSplats`). */
export function mergeSplats(members: readonly Splat[]): Splat {
  const merged = new MergedSplat();
  for (const s of members) merged.add(s);
  return merged.splat();
}

/**
 * Splats added one at a time, merged: the summed importance, the importance-weighted centre and
 * colour, and the weighted second moments (each member's covariance R S² Rᵀ plus its centre's
 * outer product), from which the spread about the merged centre comes out at the end.
 */
class MergedSplat {
  members = 0;
  private weight = 0;
  private maxOpacity = 0;
  private readonly centre = [0, 0, 0];
  private readonly colour = [0, 0, 0];
  /** xx, xy, xz, yy, yz, zz. */
  private readonly moment = [0, 0, 0, 0, 0, 0];
  private readonly r = new Float64Array(9);

  /** Adds a splat (read at once: `s` may be reused by the caller); returns the member count. */
  add(s: Splat): number {
    const w = importance(s);
    this.weight += w;
    this.maxOpacity = Math.max(this.maxOpacity, s.opacity);
    rotationInto(s.rotation, this.r);
    let m = 0;
    for (let a = 0; a < 3; a++) {
      this.centre[a] += w * s.position[a];
      this.colour[a] += w * s.color[a];
      for (let b = a; b < 3; b++) {
        let c = s.position[a] * s.position[b];
        for (let k = 0; k < 3; k++) c += this.r[a * 3 + k] * s.scale[k] * s.scale[k] * this.r[b * 3 + k];
        this.moment[m++] += w * c;
      }
    }
    return ++this.members;
  }

  splat(): Splat {
    const total = this.weight;
    const mean = this.centre.map((c) => c / total);
    const e = this.moment.map((m) => m / total);
    const [xx, xy, xz, yy, yz, zz] = [
      e[0] - mean[0] * mean[0],
      e[1] - mean[0] * mean[1],
      e[2] - mean[0] * mean[2],
      e[3] - mean[1] * mean[1],
      e[4] - mean[1] * mean[2],
      e[5] - mean[2] * mean[2],
    ];
    const color = this.colour.map((c) => c / total) as [number, number, number];
    return gaussianOf(mean, [xx, xy, xz, xy, yy, yz, xz, yz, zz], total, this.maxOpacity, color);
  }
}

/**
 * The merged splat: its axes and extents from the covariance's eigen-decomposition, and an
 * opacity from the members' summed coverage over its cross-section (a cell its members fill is
 * opaque, one they only dot stays see-through), never under half the most opaque member's.
 */
function gaussianOf(mean: number[], cov: Mat3, coverage: number, maxOpacity: number, color: [number, number, number]): Splat {
  const { values, vectors } = symmetricEigen(cov);
  const scale: [number, number, number] = [0, 0, 0];
  for (let k = 0; k < 3; k++) scale[k] = Math.sqrt(Math.max(values[k], 1e-12));
  const area = (scale[0] * scale[1] + scale[1] * scale[2] + scale[2] * scale[0]) / 3;
  return {
    position: [mean[0], mean[1], mean[2]],
    opacity: Math.min(1, Math.max(coverage / area, maxOpacity * 0.5)),
    color,
    scale,
    rotation: quaternionOf(vectors),
  };
}

/** Writes the row-major rotation matrix of a quaternion (x, y, z, w) into `out`. */
function rotationInto(q: readonly number[], out: Float64Array): void {
  const len = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  const x = q[0] / len;
  const y = q[1] / len;
  const z = q[2] / len;
  const w = q[3] / len;
  out[0] = 1 - 2 * (y * y + z * z);
  out[1] = 2 * (x * y - z * w);
  out[2] = 2 * (x * z + y * w);
  out[3] = 2 * (x * y + z * w);
  out[4] = 1 - 2 * (x * x + z * z);
  out[5] = 2 * (y * z - x * w);
  out[6] = 2 * (x * z - y * w);
  out[7] = 2 * (y * z + x * w);
  out[8] = 1 - 2 * (x * x + y * y);
}

/**
 * Eigenvalues and eigenvectors (the columns of `vectors`, row-major) of a symmetric 3×3 matrix,
 * by cyclic Jacobi rotations: exact to float precision in a handful of sweeps for 3×3.
 */
export function symmetricEigen(m: Mat3): { values: [number, number, number]; vectors: Mat3 } {
  const a = [...m] as Mat3;
  const v: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 32; sweep++) {
    const off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    if (off < 1e-30) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      const apq = a[p * 3 + q];
      if (Math.abs(apq) < 1e-300) continue;
      const theta = (a[q * 3 + q] - a[p * 3 + p]) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        // A ← Jᵀ A J, column then row.
        const akp = a[k * 3 + p];
        const akq = a[k * 3 + q];
        a[k * 3 + p] = c * akp - s * akq;
        a[k * 3 + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p * 3 + k];
        const aqk = a[q * 3 + k];
        a[p * 3 + k] = c * apk - s * aqk;
        a[q * 3 + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k * 3 + p];
        const vkq = v[k * 3 + q];
        v[k * 3 + p] = c * vkp - s * vkq;
        v[k * 3 + q] = s * vkp + c * vkq;
      }
    }
  }
  return { values: [a[0], a[4], a[8]], vectors: v };
}

/** The quaternion (x, y, z, w) of a rotation whose columns are `m`'s; a reflection is made a rotation. */
function quaternionOf(m: Mat3): [number, number, number, number] {
  const det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
  // Flipping one axis keeps the same ellipsoid (it is symmetric about every axis).
  const r = det < 0 ? ([m[0], m[1], -m[2], m[3], m[4], -m[5], m[6], m[7], -m[8]] as Mat3) : m;
  const trace = r[0] + r[4] + r[8];
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    w = 0.25 / s;
    x = (r[7] - r[5]) * s;
    y = (r[2] - r[6]) * s;
    z = (r[3] - r[1]) * s;
  } else if (r[0] > r[4] && r[0] > r[8]) {
    const s = 2 * Math.sqrt(1 + r[0] - r[4] - r[8]);
    w = (r[7] - r[5]) / s;
    x = 0.25 * s;
    y = (r[1] + r[3]) / s;
    z = (r[2] + r[6]) / s;
  } else if (r[4] > r[8]) {
    const s = 2 * Math.sqrt(1 + r[4] - r[0] - r[8]);
    w = (r[2] - r[6]) / s;
    x = (r[1] + r[3]) / s;
    y = 0.25 * s;
    z = (r[5] + r[7]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + r[8] - r[0] - r[4]);
    w = (r[3] - r[1]) / s;
    x = (r[2] + r[6]) / s;
    y = (r[5] + r[7]) / s;
    z = 0.25 * s;
  }
  const len = Math.hypot(x, y, z, w);
  return [x / len, y / len, z / len, w / len];
}
