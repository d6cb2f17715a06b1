import {
  Biome,
  FogSpec,
  HexColor,
  LightingSpec,
  PropKind,
  SkySpec,
  TerrainShape,
  TerrainSpec,
  TimeOfDay,
  Vec3,
  Weather,
} from '../scene-spec';
import { luminance, mixHex, scaleHex } from './colors';
import { round } from './prng';

/** The look of a biome before the prompt's modifiers and the source palette are applied. */
export interface BiomePreset {
  shape: TerrainShape;
  heightScale: number;
  colors: TerrainSpec['colors'];
  palette: HexColor[];
  /** Props placed at random on land, `[min, max]` of each. */
  props: Partial<Record<PropKind, [number, number]>>;
  /** The kind of the prop near the centre that the hero camera frames. */
  focal: PropKind;
  sea: boolean;
}

export const BIOME_PRESETS: Record<Biome, BiomePreset> = {
  forest: {
    shape: 'rolling',
    heightScale: 7,
    colors: { low: '#3e6a2a', mid: '#4f7d32', high: '#6b7f45', shore: '#b8a77a' },
    palette: ['#2f5d24', '#4f7d32', '#6b4a2b', '#8fb36a', '#a7c4d9'],
    props: { tree: [45, 60], pine: [15, 25], bush: [12, 18], rock: [6, 10] },
    focal: 'tree',
    sea: false,
  },
  desert: {
    shape: 'dunes',
    heightScale: 9,
    colors: { low: '#d4b075', mid: '#e4c48a', high: '#c99a5b', shore: '#e8d3a0' },
    palette: ['#e4c48a', '#c99a5b', '#8c5a33', '#f2e2b8', '#7fa8c9'],
    props: { cactus: [16, 24], rock: [10, 16] },
    focal: 'cactus',
    sea: false,
  },
  city: {
    shape: 'flat',
    heightScale: 1.2,
    colors: { low: '#55585d', mid: '#63666b', high: '#72757a', shore: '#9a9483' },
    palette: ['#6b6e73', '#9aa3ad', '#c9b99a', '#3b4654', '#e0a458'],
    props: { lamp: [14, 20], tree: [6, 10] },
    focal: 'building',
    sea: false,
  },
  ocean: {
    shape: 'coast',
    heightScale: 4,
    colors: { low: '#d8c594', mid: '#8fa85a', high: '#6f8f45', shore: '#e6d5a8' },
    palette: ['#1f6f8b', '#e6d5a8', '#6f8f45', '#f2f2ea', '#0f3d5e'],
    props: { palm: [8, 12], rock: [8, 12], boat: [5, 8], bush: [4, 8] },
    focal: 'boat',
    sea: true,
  },
  snow: {
    shape: 'rolling',
    heightScale: 6,
    colors: { low: '#e6edf5', mid: '#dfe7f0', high: '#f7fbff', shore: '#cfd8e0' },
    palette: ['#f4f8fc', '#b9c9d9', '#5d7a8c', '#2f4a3a', '#8aa4c8'],
    props: { pine: [25, 35], rock: [6, 10], snowman: [1, 2] },
    focal: 'snowman',
    sea: false,
  },
  mountains: {
    shape: 'peaks',
    heightScale: 38,
    colors: { low: '#56733a', mid: '#6f6a5e', high: '#eef1f4', shore: '#a99f86' },
    palette: ['#56733a', '#6f6a5e', '#eef1f4', '#3d4d5c', '#9db4cc'],
    props: { pine: [30, 40], rock: [16, 24] },
    focal: 'pine',
    sea: false,
  },
  plains: {
    shape: 'rolling',
    heightScale: 4,
    colors: { low: '#6f9a3c', mid: '#86ad4a', high: '#a3b86a', shore: '#c9b88a' },
    palette: ['#86ad4a', '#6f9a3c', '#c9b88a', '#4e7a34', '#9cc3e6'],
    props: { tree: [10, 16], bush: [14, 22], rock: [6, 10] },
    focal: 'tree',
    sea: false,
  },
  village: {
    shape: 'rolling',
    heightScale: 3,
    colors: { low: '#6a9440', mid: '#7ea34c', high: '#98b064', shore: '#c9b88a' },
    palette: ['#7ea34c', '#e9e1d0', '#8c3b2e', '#5a3d24', '#9cc3e6'],
    props: { house: [10, 16], tree: [14, 20], bush: [8, 12], lamp: [5, 8] },
    focal: 'house',
    sea: false,
  },
};

/** How many of a kind an instruction like "add rocks" or a prompt's "with boats" adds. */
export const DEFAULT_ADD_COUNT: Record<PropKind, number> = {
  tree: 12,
  pine: 12,
  palm: 6,
  bush: 8,
  rock: 8,
  cactus: 6,
  building: 6,
  house: 4,
  boat: 3,
  snowman: 1,
  lamp: 6,
};

/** Colour variants per prop kind; few of them, so materials and meshes are shared. */
export const PROP_COLORS: Record<PropKind, HexColor[]> = {
  tree: ['#3f7d2c', '#4e8a33', '#5b7f2a', '#6b9a3a'],
  pine: ['#2f5b34', '#25513a', '#3a6840'],
  palm: ['#4f8f3a', '#5d9c40'],
  bush: ['#4c7a2e', '#5a8a36', '#6d8f3c'],
  rock: ['#7d7a74', '#8a857c', '#6b6861'],
  cactus: ['#4f7d3a', '#5c8a44'],
  building: ['#9aa3ad', '#b7b0a3', '#7d8793', '#c9c2b5', '#5f6b78'],
  house: ['#e9e1d0', '#d9c7a8', '#c9d3dc', '#f0e6d6'],
  boat: ['#f2f2ee', '#c0392b', '#2c5d8f'],
  snowman: ['#c0392b', '#2e6fa8', '#2f8f4e'],
  lamp: ['#2b2d31'],
};

export const AUTUMN_COLORS: HexColor[] = ['#c8662a', '#d9902f', '#b5452a', '#e0b040'];

export const WATER_COLORS = { sea: '#1f6f8b', lake: '#2e6f86' } as const;

interface TimePreset {
  elevationDeg: number;
  azimuthDeg: number;
  sun: HexColor;
  intensity: number;
  ambient: HexColor;
  ambientIntensity: number;
  sky: SkySpec;
}

// Azimuth 90° puts the sun straight ahead of the default cameras (towards −Z): sunsets are
// backlit, as photographers shoot them; at noon the sun is behind the camera.
const TIME_PRESETS: Record<TimeOfDay, TimePreset> = {
  dawn: {
    elevationDeg: 10,
    azimuthDeg: 35,
    sun: '#ffc38a',
    intensity: 1.6,
    ambient: '#8ea2c6',
    ambientIntensity: 0.45,
    sky: { top: '#6d8ccc', horizon: '#f7c59f' },
  },
  day: {
    elevationDeg: 55,
    azimuthDeg: 235,
    sun: '#fff4e0',
    intensity: 3,
    ambient: '#c4d8ff',
    ambientIntensity: 0.6,
    sky: { top: '#3d7bd9', horizon: '#bfdcff' },
  },
  sunset: {
    elevationDeg: 7,
    azimuthDeg: 100,
    sun: '#ff9248',
    intensity: 2,
    ambient: '#9b7fb0',
    ambientIntensity: 0.4,
    sky: { top: '#34407a', horizon: '#ff9a5a' },
  },
  night: {
    elevationDeg: 40,
    azimuthDeg: 200,
    sun: '#a8bcff',
    intensity: 0.35,
    ambient: '#2a3558',
    ambientIntensity: 0.25,
    sky: { top: '#04070f', horizon: '#17213f' },
  },
};

const WEATHER_EFFECT: Record<Weather, { grey: HexColor; amount: number; sun: number; ambient: number }> = {
  clear: { grey: '#ffffff', amount: 0, sun: 1, ambient: 1 },
  overcast: { grey: '#9aa1a8', amount: 0.45, sun: 0.5, ambient: 1.15 },
  rain: { grey: '#6f767e', amount: 0.6, sun: 0.35, ambient: 1.1 },
  snowfall: { grey: '#c9d1da', amount: 0.5, sun: 0.5, ambient: 1.2 },
};

export interface Atmosphere {
  sky: SkySpec;
  lighting: LightingSpec;
}

/**
 * Sky and lights for a time of day and weather. The sun's azimuth is nudged by the scene's seed
 * (±15°), so relighting an edited scene keeps the same sun bearing. `accent` (the source image's
 * lightest colour) tints the horizon so the sky agrees with the backdrop.
 */
export function atmosphere(time: TimeOfDay, weather: Weather, seed: number, accent: HexColor | null): Atmosphere {
  const t = TIME_PRESETS[time];
  const w = WEATHER_EFFECT[weather];
  const azimuth = ((t.azimuthDeg + ((seed % 1000) / 1000 - 0.5) * 30) * Math.PI) / 180;
  const elevation = (t.elevationDeg * Math.PI) / 180;
  const direction: Vec3 = [
    round(Math.cos(elevation) * Math.cos(azimuth), 4),
    round(Math.sin(elevation), 4),
    round(-Math.cos(elevation) * Math.sin(azimuth), 4),
  ];
  let horizon = t.sky.horizon;
  if (accent) horizon = mixHex(horizon, accent, 0.2);
  const grey = time === 'night' ? scaleHex(w.grey, 0.2) : w.grey;
  return {
    sky: { top: mixHex(t.sky.top, grey, w.amount), horizon: mixHex(horizon, grey, w.amount) },
    lighting: {
      sun: { direction, color: t.sun, intensity: round(t.intensity * w.sun) },
      ambient: { color: t.ambient, intensity: round(t.ambientIntensity * w.ambient) },
    },
  };
}

/** Fog for a scene of `size` metres: thick for fog and mist, lighter for rain and snowfall. */
export function fogFor(kind: 'fog' | Weather, sky: SkySpec, size: number): FogSpec | null {
  const color = sky.horizon;
  switch (kind) {
    case 'fog':
      return { color, near: round(size * 0.08), far: round(size * 0.75) };
    case 'rain':
    case 'snowfall':
      return { color, near: round(size * 0.2), far: round(size * 1.3) };
    default:
      return null;
  }
}

/** Terrain colours covered in snow, keeping a hint of the ground beneath. */
export function snowColors(colors: TerrainSpec['colors']): TerrainSpec['colors'] {
  const snow = '#eef3f8';
  return {
    low: mixHex(colors.low, snow, 0.8),
    mid: mixHex(colors.mid, snow, 0.75),
    high: mixHex(colors.high, '#ffffff', 0.85),
    shore: mixHex(colors.shore, snow, 0.6),
  };
}

/**
 * Pulls terrain colours towards a source image's palette (dark to dark, light to light) so the
 * ground belongs with the backdrop without losing the biome's character.
 */
export function tintTerrain(colors: TerrainSpec['colors'], palette: HexColor[], amount = 0.35): TerrainSpec['colors'] {
  if (palette.length === 0) return colors;
  const sorted = [...palette].sort((a, b) => luminance(a) - luminance(b) || (a < b ? -1 : 1));
  const at = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))];
  return {
    low: mixHex(colors.low, at(0.25), amount),
    mid: mixHex(colors.mid, at(0.5), amount),
    high: mixHex(colors.high, at(0.9), amount),
    shore: mixHex(colors.shore, at(0.75), amount * 0.5),
  };
}

export function lightest(palette: HexColor[]): HexColor | null {
  if (palette.length === 0) return null;
  return [...palette].sort((a, b) => luminance(b) - luminance(a) || (a < b ? -1 : 1))[0];
}
