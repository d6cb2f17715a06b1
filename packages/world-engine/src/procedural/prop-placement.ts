import { HexColor, PropKind, PropSpec, TerrainSpec, Vec3, WaterSpec } from '../scene-spec';
import { Prng, round } from './prng';
import { PROP_RADIUS } from './prop-meshes';
import { HeightField } from './terrain-field';

export interface Ground {
  terrain: TerrainSpec;
  water: WaterSpec | null;
  field: HeightField;
}

export type ColorPicker = (kind: PropKind, prng: Prng) => HexColor;

/** Props keep this far from the terrain's edge, so nothing hangs over the void. */
const EDGE_MARGIN = 6;
/** Land props need this much freeboard above the water; boats this much depth below it. */
const DRY_MARGIN = 0.3;
const DRAFT = 0.8;

/**
 * Scatters `count` props of a kind over the terrain (or within `area`), on dry land — or on deep
 * enough water for boats — and apart from the props already there. Gives up quietly on a spot
 * after a few tries, so a crowded or flooded scene just gets fewer props.
 */
export function scatterProps(
  ground: Ground,
  existing: readonly PropSpec[],
  kind: PropKind,
  count: number,
  prng: Prng,
  pickColor: ColorPicker,
  area?: { center: [number, number]; radius: number },
): PropSpec[] {
  const placed: PropSpec[] = [];
  const half = ground.terrain.size / 2 - EDGE_MARGIN;
  // A lake is a few percent of the terrain: boats look for water where the basin is.
  const basin = ground.terrain.basin;
  if (!area && kind === 'boat' && basin) area = { center: basin.center, radius: basin.radius * 0.6 };
  const all = [...existing];
  for (let n = 0; n < count; n++) {
    for (let attempt = 0; attempt < 12; attempt++) {
      let x: number;
      let z: number;
      if (area) {
        const a = prng.range(0, Math.PI * 2);
        const r = area.radius * Math.sqrt(prng.next());
        x = area.center[0] + r * Math.cos(a);
        z = area.center[1] + r * Math.sin(a);
        if (Math.abs(x) > half || Math.abs(z) > half) continue;
      } else {
        x = prng.range(-half, half);
        z = prng.range(-half, half);
      }
      const scale = randomScale(kind, prng);
      const rotationY = prng.range(0, Math.PI * 2);
      const candidate: PropSpec = { kind, position: [x, 0, z], rotationY, scale, color: '#000000' };
      const y = restingHeight(candidate, ground);
      if (y === null || crowded(candidate, all)) continue;
      candidate.position = [round(x), round(y), round(z)];
      candidate.rotationY = round(rotationY);
      candidate.scale = scale.map((s) => round(s)) as Vec3;
      candidate.color = pickColor(kind, prng);
      placed.push(candidate);
      all.push(candidate);
      break;
    }
  }
  return placed;
}

/**
 * City blocks: buildings on a street grid, taller towards the back so the skyline rises away
 * from the default cameras. The central block is left to the focal tower.
 */
export function cityGrid(ground: Ground, prng: Prng, pickColor: ColorPicker): PropSpec[] {
  const props: PropSpec[] = [];
  const spacing = 16;
  const half = ground.terrain.size / 2 - EDGE_MARGIN - spacing / 2;
  for (let gz = -half; gz <= half; gz += spacing) {
    for (let gx = -half; gx <= half; gx += spacing) {
      if (Math.abs(gx) < spacing / 2 && Math.abs(gz) < spacing / 2) continue;
      if (!prng.chance(0.78)) continue;
      const back = (half - gz) / (2 * half);
      const scale: Vec3 = [prng.range(7, 11.5), prng.range(8, 18) + back * prng.range(10, 40), prng.range(7, 11.5)];
      const prop: PropSpec = { kind: 'building', position: [gx, 0, gz], rotationY: 0, scale, color: '#000000' };
      const y = restingHeight(prop, ground);
      if (y === null) continue;
      prop.position = [round(gx), round(y), round(gz)];
      prop.scale = scale.map((s) => round(s)) as Vec3;
      prop.color = pickColor('building', prng);
      props.push(prop);
    }
  }
  return props;
}

export function randomScale(kind: PropKind, prng: Prng): Vec3 {
  switch (kind) {
    case 'rock': {
      const s = prng.range(0.5, 2.2);
      return [s * prng.range(0.8, 1.3), s * prng.range(0.5, 1), s * prng.range(0.8, 1.3)];
    }
    case 'building': {
      const w = prng.range(7, 11);
      return [w, prng.range(12, 40), prng.range(7, 11)];
    }
    case 'bush': {
      const s = prng.range(0.7, 1.4);
      return [s, s * 0.85, s];
    }
    case 'lamp':
      return [1, 1, 1];
    default: {
      const [lo, hi] = UNIFORM_SCALE[kind];
      const s = prng.range(lo, hi);
      return [s, s, s];
    }
  }
}

const UNIFORM_SCALE: Record<PropKind, [number, number]> = {
  tree: [0.8, 1.35],
  pine: [0.8, 1.6],
  palm: [0.8, 1.2],
  bush: [0.7, 1.4],
  rock: [0.5, 2.2],
  cactus: [0.8, 1.3],
  building: [1, 1],
  house: [0.8, 1.15],
  boat: [0.8, 1.3],
  snowman: [0.9, 1.2],
  lamp: [1, 1],
};

/**
 * Where a prop's base must sit, or null when the spot is unsuitable: land props on dry ground
 * (houses and buildings at the lowest corner of their footprint, so no corner floats), boats on
 * water deep enough to float them.
 */
export function restingHeight(prop: PropSpec, ground: Ground): number | null {
  const [x, , z] = prop.position;
  const h = ground.field(x, z);
  if (prop.kind === 'boat') {
    if (!ground.water || h > ground.water.level - DRAFT) return null;
    return ground.water.level;
  }
  if (ground.water && h < ground.water.level + DRY_MARGIN) return null;
  if (prop.kind === 'building' || prop.kind === 'house') {
    const hx = (prop.kind === 'house' ? 3 : 0.5) * prop.scale[0];
    const hz = (prop.kind === 'house' ? 2.5 : 0.5) * prop.scale[2];
    const c = Math.cos(prop.rotationY);
    const s = Math.sin(prop.rotationY);
    let lowest = h;
    for (const [dx, dz] of [
      [hx, hz],
      [-hx, hz],
      [hx, -hz],
      [-hx, -hz],
    ]) {
      const cx = x + dx * c + dz * s;
      const cz = z - dx * s + dz * c;
      const ch = ground.field(cx, cz);
      if (ground.water && ch < ground.water.level + DRY_MARGIN) return null;
      lowest = Math.min(lowest, ch);
    }
    return lowest - 0.05;
  }
  // Sunk a little so the base never shows a gap on a slope.
  return h - 0.08 * prop.scale[1];
}

/**
 * After the ground changed (a lake added or drained, terrain edited): stands every prop on the
 * new ground and drops those that no longer fit (trees now under water, boats now on land).
 */
export function settleProps(props: readonly PropSpec[], ground: Ground): PropSpec[] {
  const settled: PropSpec[] = [];
  for (const prop of props) {
    const y = restingHeight(prop, ground);
    if (y === null) continue;
    settled.push({ ...prop, position: [prop.position[0], round(y), prop.position[2]] });
  }
  return settled;
}

function footprint(prop: PropSpec): number {
  if (prop.kind === 'building') return 0.6 * Math.max(prop.scale[0], prop.scale[2]);
  return PROP_RADIUS[prop.kind] * Math.max(prop.scale[0], prop.scale[2]);
}

function crowded(candidate: PropSpec, others: readonly PropSpec[]): boolean {
  const r = footprint(candidate);
  for (const o of others) {
    const d = Math.hypot(candidate.position[0] - o.position[0], candidate.position[2] - o.position[2]);
    if (d < 0.75 * (r + footprint(o))) return true;
  }
  return false;
}
