import { TerrainSpec } from '../scene-spec';
import { Prng } from './prng';

export type HeightField = (x: number, z: number) => number;

const LATTICE = 256;

/**
 * The terrain's height at any (x, z), a pure function of the terrain spec. The spec composer
 * uses it to stand props on the ground and keep cameras above it; the GLB writer samples it on
 * the grid. Sharing one function is what keeps props from floating or sinking.
 */
export function createHeightField(terrain: TerrainSpec): HeightField {
  const noise = valueNoise(terrain.seed);
  const { size, heightScale: amp, shape, basin } = terrain;
  const half = size / 2;

  const fbm = (x: number, z: number, octaves: number, freq: number) => {
    let sum = 0;
    let norm = 0;
    let a = 1;
    let f = freq;
    for (let o = 0; o < octaves; o++) {
      sum += a * noise(x * f, z * f);
      norm += a;
      a *= 0.5;
      f *= 2;
    }
    return sum / norm; // in [0, 1]
  };

  const base: HeightField = (x, z) => {
    // 0 at the front edge (+Z), 1 at the back edge (−Z): the default cameras look towards −Z.
    const back = clamp01((half - z) / size);
    switch (shape) {
      case 'flat':
        return amp * (fbm(x, z, 2, 1 / 60) - 0.5);
      case 'dunes': {
        const warp = fbm(x, z, 3, 1 / 50);
        const ridges = Math.abs(Math.sin(x * 0.07 + z * 0.025 + warp * 4));
        return amp * (0.55 * ridges + 0.45 * warp - 0.5);
      }
      case 'peaks': {
        const ridged = 1 - Math.abs(2 * fbm(x, z, 5, 1 / 70) - 1);
        const rise = smoothstep(0.2, 1, back);
        return amp * (0.12 * fbm(x, z, 3, 1 / 30) + ridged * ridged * (0.15 + 0.85 * rise));
      }
      case 'coast': {
        // Land in front, falling away under the sea towards the back.
        const slope = 3 - 14 * smoothstep(0.35, 0.8, back);
        return slope + amp * (fbm(x, z, 4, 1 / 40) - 0.5);
      }
      case 'rolling':
      default:
        return amp * (fbm(x, z, 4, 1 / 45) - 0.5);
    }
  };

  if (!basin) return base;
  return (x, z) => {
    const d = Math.hypot(x - basin.center[0], z - basin.center[1]) / basin.radius;
    if (d >= 1) return base(x, z);
    const falloff = (1 - d * d) ** 2;
    return base(x, z) - basin.depth * falloff;
  };
}

/** Smooth 2D value noise on a seeded 256×256 lattice that wraps; output in [0, 1]. */
function valueNoise(seed: number): (x: number, z: number) => number {
  const prng = new Prng(seed);
  const values = new Float64Array(LATTICE * LATTICE);
  for (let i = 0; i < values.length; i++) values[i] = prng.next();
  const at = (i: number, j: number) => values[(i & (LATTICE - 1)) * LATTICE + (j & (LATTICE - 1))];
  return (x, z) => {
    const xi = Math.floor(x);
    const zi = Math.floor(z);
    const tx = fade(x - xi);
    const tz = fade(z - zi);
    const a = at(xi, zi) + (at(xi + 1, zi) - at(xi, zi)) * tx;
    const b = at(xi, zi + 1) + (at(xi + 1, zi + 1) - at(xi, zi + 1)) * tx;
    return a + (b - a) * tz;
  };
}

const fade = (t: number) => t * t * (3 - 2 * t);

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

export function smoothstep(e0: number, e1: number, x: number): number {
  const t = clamp01((x - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
}
