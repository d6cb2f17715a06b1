/**
 * The scene spec: a small JSON description of a generated scene, stored beside its GLB.
 *
 * The GLB is what the studio renders; the spec is what the studio and later edits reason about
 * (time of day, lights, fog, sky, camera presets, what props exist). Everything a viewer needs
 * that glTF 2.0 core cannot carry — lights, fog, sky colours — lives here only.
 *
 * Conventions: one unit is one metre, +Y up, the ground around y = 0 (the terrain's heights are
 * centred on it), the scene centred on the origin with its "front" towards +Z (the default
 * cameras look towards −Z): the studio's units, so a procedural scene needs no `world` transform. Colours are sRGB `#rrggbb`. Numbers are finite and rounded,
 * so the JSON of a spec is stable byte for byte.
 */

export const SCENE_SPEC_SCHEMA_VERSION = 1;

export const BIOMES = ['forest', 'desert', 'city', 'ocean', 'snow', 'mountains', 'plains', 'village'] as const;
export type Biome = (typeof BIOMES)[number];

export const TIMES_OF_DAY = ['dawn', 'day', 'sunset', 'night'] as const;
export type TimeOfDay = (typeof TIMES_OF_DAY)[number];

export const WEATHERS = ['clear', 'overcast', 'rain', 'snowfall'] as const;
export type Weather = (typeof WEATHERS)[number];

export const TERRAIN_SHAPES = ['rolling', 'flat', 'dunes', 'peaks', 'coast'] as const;
export type TerrainShape = (typeof TERRAIN_SHAPES)[number];

export const PROP_KINDS = ['tree', 'pine', 'palm', 'bush', 'rock', 'cactus', 'building', 'house', 'boat', 'snowman', 'lamp'] as const;
export type PropKind = (typeof PROP_KINDS)[number];

export type Vec3 = [number, number, number];
/** sRGB colour, `#rrggbb`, lower case. */
export type HexColor = string;

export interface SkySpec {
  top: HexColor;
  horizon: HexColor;
}

export interface LightingSpec {
  sun: {
    /** Unit vector from the scene towards the light (three.js: `light.position = direction × d`). */
    direction: Vec3;
    color: HexColor;
    /** Roughly three.js physically-correct units: 3 is a clear noon, 0.3 moonlight. */
    intensity: number;
  };
  ambient: { color: HexColor; intensity: number };
}

/** Linear distance fog (three.js `Fog(color, near, far)`). */
export interface FogSpec {
  color: HexColor;
  near: number;
  far: number;
}

/** A depression carved into the terrain, where a lake sits. */
export interface BasinSpec {
  center: [number, number];
  radius: number;
  depth: number;
}

/**
 * The terrain is a height field over a square of `size` metres, sampled on a
 * `segments`×`segments` grid. Its heights are a pure function of this object (seeded noise,
 * shaped by `shape`, minus the basin), so a spec is enough to rebuild the exact same mesh.
 */
export interface TerrainSpec {
  seed: number;
  shape: TerrainShape;
  size: number;
  segments: number;
  /** Peak-to-valley amplitude of the noise, in metres. */
  heightScale: number;
  basin: BasinSpec | null;
  /** Low ground, mid slopes, high ground, and the shore (just above the water line). */
  colors: { low: HexColor; mid: HexColor; high: HexColor; shore: HexColor };
  /** Whether the ground is snow-covered (whitened colours, pines instead of broadleaf trees). */
  snowCover: boolean;
}

export interface WaterSpec {
  level: number;
  color: HexColor;
  opacity: number;
}

export interface PropSpec {
  kind: PropKind;
  /** Where the prop stands: its base sits on the terrain (boats float at the water level). */
  position: Vec3;
  /** Radians about +Y. */
  rotationY: number;
  scale: Vec3;
  color: HexColor;
}

/**
 * The source image the scene was made from, and the plane behind the scene where it belongs.
 * Recorded for the edit modes (which get the whole spec and the image): no file the generator
 * writes draws it, since every studio mode, perform included, is served the files and perform may
 * not see the source image. Its presence keeps the image's palette through edits.
 */
export interface BackdropSpec {
  sourceSha256: string;
  /** Centre of the plane; it faces +Z. */
  position: Vec3;
  width: number;
  height: number;
}

export interface CameraPreset {
  id: string;
  name: string;
  position: Vec3;
  target: Vec3;
  /** Full-frame equivalent (36×24 mm sensor): yfov = 2·atan(12 / focalLengthMm). */
  focalLengthMm: number;
}

export interface EditRecord {
  /** The version this edit produced. */
  version: number;
  instruction: string;
  /** What the instruction was understood as (e.g. `time:night`); empty when nothing matched. */
  changes: string[];
}

/**
 * What the studio needs of any scene, whichever generator made it: the environment around the
 * files (sky, lights, fog), the camera presets and the edit history. A provider's scene (a
 * World Labs world, a Meshy model) is described by this alone; its geometry is in its files.
 */
export interface SceneView {
  schemaVersion: typeof SCENE_SPEC_SCHEMA_VERSION;
  prompt: string;
  sky: SkySpec;
  lighting: LightingSpec;
  fog: FogSpec | null;
  cameras: CameraPreset[];
  edits: EditRecord[];
  /**
   * How a provider's world maps to the studio's units (metres, +Y up, ground at y = 0), when its
   * files are not already in them (World Labs': `semantics_metadata` and Marble's raw frame).
   * Absent: the files are in studio units, as the procedural generator writes them.
   */
  world?: WorldTransform;
}

/**
 * The frame a world's files are written in. `opengl`: x right, y up, z towards the viewer (the
 * studio's, glTF's and three.js's). `opencv`: x right, y down, z forward (Marble's raw frame,
 * "marble_raw_opencv"): it reads as the `opengl` frame turned 180° about X (y and z negated).
 */
export const WORLD_FRAMES = ['opengl', 'opencv'] as const;
export type WorldFrame = (typeof WORLD_FRAMES)[number];

/**
 * A world's files to studio units, in this order (World Labs' "Rendering Marble SPZ files in
 * third-party engines"): every position × `metricScale` (splat sizes too), then `groundOffset`
 * subtracted from y, both in the files' own frame; then, for an `opencv` frame, y and z negated.
 * The result: metres, +Y up, the ground at y = 0. Splat, collider and mesh alike.
 */
export interface WorldTransform {
  metricScale: number;
  groundOffset: number;
  /** Absent: `opengl` (specs written before the frame was recorded). */
  frame?: WorldFrame;
}

/**
 * The fields of a view that say how the scene was asked for — its prompt and its edit history,
 * with every instruction — rather than what it looks like. A new field of SceneView that carries
 * the partner's words belongs here.
 */
export type SceneAuthoringField = 'prompt' | 'edits';

/**
 * What draws a scene: its view without how it was asked for. This is all of a spec that a studio
 * session which cannot edit receives (docs/embed.md, "What each mode receives").
 */
export type SceneDrawing = Omit<SceneView, SceneAuthoringField>;

/** The procedural generator's full description, from which it rebuilds the exact same GLB. */
export interface SceneSpec extends SceneView {
  /** Derived from the prompt and the source image's SHA-256; seeds every random choice. */
  seed: number;
  biome: Biome;
  timeOfDay: TimeOfDay;
  weather: Weather;
  terrain: TerrainSpec;
  water: WaterSpec | null;
  props: PropSpec[];
  /** Dominant colours of the source image when there is one, else the biome's palette. */
  palette: HexColor[];
  backdrop: BackdropSpec | null;
}

/** Whether a view is a procedural spec (that the procedural generator can edit in place). */
export function isProceduralSpec(view: SceneView): view is SceneSpec {
  return 'terrain' in view && 'props' in view && 'biome' in view;
}
