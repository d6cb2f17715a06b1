import {
  BackdropSpec,
  BasinSpec,
  HexColor,
  PROP_KINDS,
  PropKind,
  PropSpec,
  SCENE_SPEC_SCHEMA_VERSION,
  SceneSpec,
  TerrainSpec,
  WaterSpec,
} from '../scene-spec';
import { mixHex } from './colors';
import { cameraPresets } from './camera-presets';
import {
  AUTUMN_COLORS,
  BIOME_PRESETS,
  DEFAULT_ADD_COUNT,
  PROP_COLORS,
  WATER_COLORS,
  atmosphere,
  fogFor,
  lightest,
  snowColors,
  tintTerrain,
} from './presets';
import { Prng, round } from './prng';
import { PromptTraits, analysePrompt } from './prompt-traits';
import { ColorPicker, Ground, cityGrid, scatterProps } from './prop-placement';
import { createHeightField } from './terrain-field';

/** Metres on a side: big enough for a skyline, small enough that 96 segments look smooth. */
export const TERRAIN_SIZE = 160;
export const TERRAIN_SEGMENTS = 96;

const FOLIAGE: PropKind[] = ['tree', 'pine', 'palm', 'bush'];

export interface ComposeInput {
  prompt: string;
  seed: number;
  /** Dominant colours of the source image, or null when there is none. */
  sourcePalette: HexColor[] | null;
  /** The source image to show behind the scene; `aspect` is width / height. */
  backdrop: { sourceSha256: string; aspect: number } | null;
}

/**
 * Prompt → spec. Keywords choose the biome, time, weather and water; the seed decides
 * everything else (terrain noise, where each prop stands, colour variants), so the same input
 * always gives the same spec. `overrides` lets an edit recompose with some traits pinned.
 */
export function composeScene(input: ComposeInput, overrides: Partial<PromptTraits> = {}): SceneSpec {
  const traits: PromptTraits = { ...analysePrompt(input.prompt), ...overrides };
  const prng = new Prng(input.seed);
  const preset = BIOME_PRESETS[traits.biome];
  const sourcePalette = input.sourcePalette?.length ? input.sourcePalette : null;

  let colors = sourcePalette ? tintTerrain(preset.colors, sourcePalette) : preset.colors;
  if (traits.snowCover && traits.biome !== 'snow') colors = snowColors(colors);
  let terrain: TerrainSpec = {
    seed: prng.seed(),
    shape: preset.shape,
    size: TERRAIN_SIZE,
    segments: TERRAIN_SEGMENTS,
    heightScale: round(preset.heightScale * prng.range(0.85, 1.15)),
    basin: null,
    colors,
    snowCover: traits.snowCover,
  };

  let water: WaterSpec | null = null;
  const waterKind = preset.sea ? 'sea' : traits.water;
  if (waterKind === 'sea') {
    water = { level: 0, color: WATER_COLORS.sea, opacity: 0.86 };
  } else if (waterKind === 'lake') {
    const lake = carveLake(terrain, prng);
    terrain = { ...terrain, basin: lake.basin };
    water = lake.water;
  }

  const ground: Ground = { terrain, water, field: createHeightField(terrain) };
  const { sky, lighting } = atmosphere(traits.timeOfDay, traits.weather, input.seed, sourcePalette ? lightest(sourcePalette) : null);
  const fog = traits.fog ? fogFor('fog', sky, TERRAIN_SIZE) : fogFor(traits.weather, sky, TERRAIN_SIZE);

  const pickColor = colorPicker({ autumn: traits.autumn, snowCover: traits.snowCover, sourcePalette });
  const props: PropSpec[] = [];
  const focalArea = { center: [0, -6] as [number, number], radius: 16 };
  let focal: PropSpec | null;
  if (traits.biome === 'city') {
    const tower: PropSpec[] = scatterProps(ground, [], 'building', 1, prng, pickColor, { center: [0, 0], radius: 3 });
    for (const t of tower) t.scale[1] = round(Math.max(t.scale[1], 42));
    props.push(...tower, ...cityGrid(ground, prng, pickColor));
    focal = tower[0] ?? null;
  } else {
    const first = scatterProps(ground, [], preset.focal, 1, prng, pickColor, focalArea);
    focal = first[0] ?? scatterProps(ground, [], preset.focal, 1, prng, pickColor)[0] ?? null;
    if (focal) props.push(focal);
  }

  for (const kind of PROP_KINDS) {
    const range = preset.props[kind];
    let count = range ? prng.int(range[0], range[1]) : 0;
    if (traits.props.includes(kind)) count = range ? Math.round(count * 1.3) : DEFAULT_ADD_COUNT[kind];
    if (kind === 'boat' && !water) count = 0;
    if (count > 0) props.push(...scatterProps(ground, props, kind, count, prng, pickColor));
  }

  let backdrop: BackdropSpec | null = null;
  if (input.backdrop) {
    const width = round(TERRAIN_SIZE * 1.1);
    const height = round(width / input.backdrop.aspect);
    backdrop = { sourceSha256: input.backdrop.sourceSha256, position: [0, round(height / 2 - 12), -(TERRAIN_SIZE / 2 + 4)], width, height };
  }

  return {
    schemaVersion: SCENE_SPEC_SCHEMA_VERSION,
    seed: input.seed,
    prompt: input.prompt,
    biome: traits.biome,
    timeOfDay: traits.timeOfDay,
    weather: traits.weather,
    sky,
    lighting,
    fog,
    terrain,
    water,
    props,
    palette: sourcePalette ?? preset.palette,
    backdrop,
    cameras: cameraPresets(ground, focal),
    edits: [],
  };
}

/**
 * A lake: a round basin in the front half of the terrain (where every terrain shape is gentle)
 * filled to a bit under half its depth, so the water has a shore all round.
 */
export function carveLake(terrain: TerrainSpec, prng: Prng): { basin: BasinSpec; water: WaterSpec } {
  const center: [number, number] = [round(prng.range(-25, 25)), round(prng.range(-10, 20))];
  const depth = round(Math.min(terrain.heightScale * 0.6 + 4, 14));
  const basin: BasinSpec = { center, radius: round(prng.range(24, 32)), depth };
  const rim = createHeightField({ ...terrain, basin: null })(center[0], center[1]);
  return { basin, water: { level: round(rim - depth * 0.45), color: WATER_COLORS.lake, opacity: 0.82 } };
}

export function colorPicker(opts: { autumn: boolean; snowCover: boolean; sourcePalette: HexColor[] | null }): ColorPicker {
  return (kind, prng) => {
    const variants = opts.autumn && kind === 'tree' ? AUTUMN_COLORS : PROP_COLORS[kind];
    const i = prng.int(0, variants.length - 1);
    let color = variants[i];
    if (opts.snowCover && FOLIAGE.includes(kind)) color = mixHex(color, '#eef3f8', 0.3);
    if (opts.sourcePalette?.length) color = mixHex(color, opts.sourcePalette[i % opts.sourcePalette.length], 0.3);
    return color;
  };
}
