import { Document, Node, Primitive, mat4 } from '@gltf-transform/core';
import type { Vec3 } from '../scene-spec';
import type { Splat } from '../spz/spz';
import { cross, normalize } from './geometry';
import { Prng } from './prng';

export interface SplatSamplingOptions {
  /** How many splats to write (at least one per pool that has surface). */
  count: number;
  seed: number;
  /** Unit vector towards the sun: splats carry baked light, as a captured world does. */
  sunDirection: Vec3;
  /** The scene's overall brightness (0 night … 1 noon), from the spec's sun intensity. */
  daylight: number;
}

interface Triangle {
  a: Vec3;
  b: Vec3;
  c: Vec3;
  normal: Vec3;
  colors: [Vec3, Vec3, Vec3];
  opacity: number;
}

interface Pool {
  triangles: Triangle[];
  /** Running sum of the triangles' areas, for area-weighted picking by binary search. */
  cumulative: Float64Array;
  area: number;
}

/**
 * The share of splats given to props. By area the terrain would take almost all of them (160 m
 * of ground against a few square metres per tree), and a world model's capture is dense where
 * there is detail: props get a fixed share, the ground and water the rest.
 */
const PROP_SHARE = 0.45;
/** In-plane standard deviation per sample spacing: overlapping enough to read as a surface. */
const SPREAD = 0.75;
/** Splats are discs: thin along the surface normal. */
const THICKNESS = 0.08;

/**
 * Samples a procedural scene's glTF into Gaussian splats, the way a world model's capture
 * covers surfaces: points picked uniformly by area on every triangle (seeded, so the same GLB
 * gives the same splats), each a flat disc along its face with the surface's colour and baked
 * sun-and-sky shading (splats carry no lighting of their own). Textured surfaces (the backdrop
 * showing the source image) are left out: sampling images would need a decoder here, and the
 * collider still holds them for focus and framing.
 */
export function sampleSceneSplats(doc: Document, options: SplatSamplingOptions): Splat[] {
  const ground: Triangle[] = [];
  const props: Triangle[] = [];
  for (const scene of doc.getRoot().listScenes()) {
    scene.traverse((node) => {
      const mesh = node.getMesh();
      if (!mesh) return;
      const target = isUnder(node, 'props') ? props : ground;
      const world = node.getWorldMatrix();
      for (const primitive of mesh.listPrimitives()) collectTriangles(primitive, world, target);
    });
  }
  const pools = [ground, props].map(toPool);
  if (pools.every((p) => p.area === 0)) return [];
  const propCount = pools[1].area > 0 ? Math.round(options.count * (pools[0].area > 0 ? PROP_SHARE : 1)) : 0;
  const counts = [options.count - propCount, propCount];

  const prng = new Prng(options.seed);
  const sun = normalize(options.sunDirection);
  const splats: Splat[] = [];
  pools.forEach((pool, i) => {
    const n = counts[i];
    if (n <= 0 || pool.area === 0) return;
    const sigma = Math.sqrt(pool.area / n) * SPREAD;
    for (let k = 0; k < n; k++) splats.push(sampleOne(pool, prng, sigma, sun, options.daylight));
  });
  return splats;
}

function sampleOne(pool: Pool, prng: Prng, sigma: number, sun: Vec3, daylight: number): Splat {
  const t = pickTriangle(pool, prng.next() * pool.area);
  // Uniform on the triangle: fold the unit square onto it.
  let u = prng.next();
  let v = prng.next();
  if (u + v > 1) {
    u = 1 - u;
    v = 1 - v;
  }
  const w = 1 - u - v;
  const at = (k: 0 | 1 | 2) => w * t.a[k] + u * t.b[k] + v * t.c[k];
  const position: Vec3 = [at(0), at(1), at(2)];
  const lambert = Math.max(0, t.normal[0] * sun[0] + t.normal[1] * sun[1] + t.normal[2] * sun[2]);
  const shade = (0.35 + 0.65 * lambert) * (0.35 + 0.65 * daylight);
  // Colours are linear in glTF; splat colours are display (sRGB) values, as cameras record them.
  const color = [0, 1, 2].map((k) => toSrgb((w * t.colors[0][k] + u * t.colors[1][k] + v * t.colors[2][k]) * shade)) as Vec3;
  // A little size jitter keeps the surface from looking like a regular pattern.
  const s = sigma * (0.7 + 0.6 * prng.next());
  return { position, color, opacity: t.opacity, scale: [s, s, s * THICKNESS], rotation: rotationZTo(t.normal) };
}

function pickTriangle(pool: Pool, x: number): Triangle {
  let lo = 0;
  let hi = pool.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pool.cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return pool.triangles[lo];
}

function toPool(triangles: Triangle[]): Pool {
  const cumulative = new Float64Array(triangles.length);
  let area = 0;
  triangles.forEach((t, i) => {
    const ab: Vec3 = [t.b[0] - t.a[0], t.b[1] - t.a[1], t.b[2] - t.a[2]];
    const ac: Vec3 = [t.c[0] - t.a[0], t.c[1] - t.a[1], t.c[2] - t.a[2]];
    const c = cross(ab, ac);
    area += Math.hypot(c[0], c[1], c[2]) / 2;
    cumulative[i] = area;
  });
  return { triangles, cumulative, area };
}

function collectTriangles(primitive: Primitive, world: mat4, out: Triangle[]): void {
  if (primitive.getMode() !== Primitive.Mode.TRIANGLES) return;
  const material = primitive.getMaterial();
  if (material?.getBaseColorTexture()) return;
  const positions = primitive.getAttribute('POSITION');
  if (!positions) return;
  const colors = primitive.getAttribute('COLOR_0');
  const factor = material?.getBaseColorFactor() ?? [1, 1, 1, 1];
  const indices = primitive.getIndices();
  const count = indices ? indices.getCount() : positions.getCount();
  const index = (i: number) => (indices ? indices.getScalar(i) : i);
  const point = (i: number): Vec3 => transform(world, positions.getElement<Vec3>(i, [0, 0, 0]));
  const color = (i: number): Vec3 => {
    const c = colors ? colors.getElement<number[]>(i, [1, 1, 1, 1]) : [1, 1, 1];
    return [c[0] * factor[0], c[1] * factor[1], c[2] * factor[2]];
  };
  for (let i = 0; i + 2 < count; i += 3) {
    const [ia, ib, ic] = [index(i), index(i + 1), index(i + 2)];
    const a = point(ia);
    const b = point(ib);
    const c = point(ic);
    const n = cross([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
    if (Math.hypot(n[0], n[1], n[2]) === 0) continue;
    out.push({ a, b, c, normal: normalize(n), colors: [color(ia), color(ib), color(ic)], opacity: factor[3] });
  }
}

function isUnder(node: Node, name: string): boolean {
  for (let p: Node | null = node; p; p = p.getParentNode()) if (p.getName() === name) return true;
  return false;
}

function transform(m: mat4, p: Vec3): Vec3 {
  return [
    m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
    m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
    m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
  ];
}

/** The shortest rotation taking +Z (a splat's thin axis) onto `n`, as (x, y, z, w). */
function rotationZTo(n: Vec3): [number, number, number, number] {
  const d = n[2];
  if (d < -0.999999) return [1, 0, 0, 0];
  const q: [number, number, number, number] = [-n[1], n[0], 0, 1 + d];
  const len = Math.hypot(...q);
  return [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
}

function toSrgb(linear: number): number {
  const c = Math.min(1, Math.max(0, linear));
  return c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
}
