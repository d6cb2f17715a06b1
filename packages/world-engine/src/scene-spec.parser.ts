import {
  BIOMES,
  BackdropSpec,
  BasinSpec,
  CameraPreset,
  EditRecord,
  FogSpec,
  LightingSpec,
  PROP_KINDS,
  PropSpec,
  SCENE_SPEC_SCHEMA_VERSION,
  SceneSpec,
  SceneView,
  SkySpec,
  TERRAIN_SHAPES,
  TIMES_OF_DAY,
  TerrainSpec,
  Vec3,
  WEATHERS,
  WORLD_FRAMES,
  WaterSpec,
} from './scene-spec';

/**
 * Bounds a spec must respect. They are generous for a real provider but keep a hostile or
 * broken one from handing the studio a scene it cannot render (a million props, a 10⁹ grid).
 */
export const SCENE_SPEC_LIMITS = {
  maxPromptLength: 16_000,
  maxProps: 5_000,
  minCameras: 1,
  maxCameras: 32,
  maxPaletteColors: 32,
  maxEdits: 1_000,
  maxInstructionLength: 4_000,
  maxChangesPerEdit: 64,
  maxCoordinate: 100_000,
  maxTerrainSegments: 512,
} as const;

/**
 * A spec that failed validation. `path` names the first offending field (`props[3].scale`);
 * the message never repeats the offending value, so it is safe to log.
 */
export class SceneSpecError extends Error {
  override name = 'SceneSpecError';

  constructor(readonly path: string) {
    super(`Invalid scene spec at ${path}`);
  }
}

const HEX = /^#[0-9a-f]{6}$/i;
const SHA256 = /^[0-9a-f]{64}$/i;
const CAMERA_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const L = SCENE_SPEC_LIMITS;

/**
 * Validates a spec that came from outside (a provider, storage) and returns a fresh copy that
 * holds only the known fields. Throws SceneSpecError on the first problem: anything malformed
 * is refused rather than repaired, since a half-understood scene is worse than a failed one.
 */
export function parseSceneSpec(value: unknown): SceneSpec {
  const o = obj(value, 'spec');
  const view = parseView(o);
  return {
    schemaVersion: view.schemaVersion,
    seed: int(o.seed, 'seed', 0, 0xffffffff),
    prompt: view.prompt,
    biome: oneOf(o.biome, 'biome', BIOMES),
    timeOfDay: oneOf(o.timeOfDay, 'timeOfDay', TIMES_OF_DAY),
    weather: oneOf(o.weather, 'weather', WEATHERS),
    sky: view.sky,
    lighting: view.lighting,
    fog: view.fog,
    terrain: terrain(o.terrain),
    water: o.water === null ? null : water(o.water),
    props: arr(o.props, 'props', 0, L.maxProps).map((p, i) => prop(p, `props[${i}]`)),
    palette: arr(o.palette, 'palette', 1, L.maxPaletteColors).map((c, i) => hex(c, `palette[${i}]`)),
    backdrop: o.backdrop === null ? null : backdrop(o.backdrop),
    cameras: view.cameras,
    edits: view.edits,
  };
}

/**
 * Validates a scene view (a provider's, or one read from storage): a procedural spec when it has
 * a terrain, checked whole; otherwise the fields every scene has. Unknown fields are dropped.
 */
export function parseSceneView(value: unknown): SceneView {
  const o = obj(value, 'spec');
  return 'terrain' in o ? parseSceneSpec(o) : parseView(o);
}

function parseView(o: Record<string, unknown>): SceneView {
  if (o.schemaVersion !== SCENE_SPEC_SCHEMA_VERSION) throw new SceneSpecError('schemaVersion');
  const view: SceneView = {
    schemaVersion: SCENE_SPEC_SCHEMA_VERSION,
    prompt: str(o.prompt, 'prompt', 0, L.maxPromptLength),
    sky: sky(o.sky),
    lighting: lighting(o.lighting),
    fog: o.fog === null ? null : fog(o.fog),
    cameras: arr(o.cameras, 'cameras', L.minCameras, L.maxCameras).map((c, i) => camera(c, `cameras[${i}]`)),
    edits: arr(o.edits, 'edits', 0, L.maxEdits).map((e, i) => edit(e, `edits[${i}]`)),
  };
  if (o.world !== undefined) {
    const w = obj(o.world, 'world');
    view.world = {
      metricScale: num(w.metricScale, 'world.metricScale', 1e-6, 1e6),
      groundOffset: num(w.groundOffset, 'world.groundOffset', -1e6, 1e6),
      ...(w.frame === undefined ? {} : { frame: oneOf(w.frame, 'world.frame', WORLD_FRAMES) }),
    };
  }
  const ids = new Set(view.cameras.map((c) => c.id));
  if (ids.size !== view.cameras.length) throw new SceneSpecError('cameras[].id (duplicate)');
  return view;
}

function sky(v: unknown): SkySpec {
  const o = obj(v, 'sky');
  return { top: hex(o.top, 'sky.top'), horizon: hex(o.horizon, 'sky.horizon') };
}

function lighting(v: unknown): LightingSpec {
  const o = obj(v, 'lighting');
  const sun = obj(o.sun, 'lighting.sun');
  const ambient = obj(o.ambient, 'lighting.ambient');
  const direction = vec3(sun.direction, 'lighting.sun.direction', 1);
  if (Math.hypot(...direction) < 0.5) throw new SceneSpecError('lighting.sun.direction');
  return {
    sun: {
      direction,
      color: hex(sun.color, 'lighting.sun.color'),
      intensity: num(sun.intensity, 'lighting.sun.intensity', 0, 100),
    },
    ambient: {
      color: hex(ambient.color, 'lighting.ambient.color'),
      intensity: num(ambient.intensity, 'lighting.ambient.intensity', 0, 100),
    },
  };
}

function fog(v: unknown): FogSpec {
  const o = obj(v, 'fog');
  const near = num(o.near, 'fog.near', 0, L.maxCoordinate);
  const far = num(o.far, 'fog.far', 0, L.maxCoordinate);
  if (far <= near) throw new SceneSpecError('fog.far');
  return { color: hex(o.color, 'fog.color'), near, far };
}

function terrain(v: unknown): TerrainSpec {
  const o = obj(v, 'terrain');
  const colors = obj(o.colors, 'terrain.colors');
  const size = num(o.size, 'terrain.size', 1, L.maxCoordinate);
  return {
    seed: int(o.seed, 'terrain.seed', 0, 0xffffffff),
    shape: oneOf(o.shape, 'terrain.shape', TERRAIN_SHAPES),
    size,
    segments: int(o.segments, 'terrain.segments', 2, L.maxTerrainSegments),
    heightScale: num(o.heightScale, 'terrain.heightScale', 0, 1_000),
    basin: o.basin === null ? null : basin(o.basin),
    colors: {
      low: hex(colors.low, 'terrain.colors.low'),
      mid: hex(colors.mid, 'terrain.colors.mid'),
      high: hex(colors.high, 'terrain.colors.high'),
      shore: hex(colors.shore, 'terrain.colors.shore'),
    },
    snowCover: bool(o.snowCover, 'terrain.snowCover'),
  };
}

function basin(v: unknown): BasinSpec {
  const o = obj(v, 'terrain.basin');
  const center = arr(o.center, 'terrain.basin.center', 2, 2).map((c, i) =>
    num(c, `terrain.basin.center[${i}]`, -L.maxCoordinate, L.maxCoordinate),
  ) as [number, number];
  return {
    center,
    radius: num(o.radius, 'terrain.basin.radius', 0.1, L.maxCoordinate),
    depth: num(o.depth, 'terrain.basin.depth', 0, 1_000),
  };
}

function water(v: unknown): WaterSpec {
  const o = obj(v, 'water');
  return {
    level: num(o.level, 'water.level', -L.maxCoordinate, L.maxCoordinate),
    color: hex(o.color, 'water.color'),
    opacity: num(o.opacity, 'water.opacity', 0, 1),
  };
}

function prop(v: unknown, path: string): PropSpec {
  const o = obj(v, path);
  const scale = vec3(o.scale, `${path}.scale`, 1_000);
  if (scale.some((s) => s <= 0)) throw new SceneSpecError(`${path}.scale`);
  return {
    kind: oneOf(o.kind, `${path}.kind`, PROP_KINDS),
    position: vec3(o.position, `${path}.position`, L.maxCoordinate),
    rotationY: num(o.rotationY, `${path}.rotationY`, -1_000, 1_000),
    scale,
    color: hex(o.color, `${path}.color`),
  };
}

function backdrop(v: unknown): BackdropSpec {
  const o = obj(v, 'backdrop');
  const sha = str(o.sourceSha256, 'backdrop.sourceSha256', 64, 64);
  if (!SHA256.test(sha)) throw new SceneSpecError('backdrop.sourceSha256');
  return {
    sourceSha256: sha.toLowerCase(),
    position: vec3(o.position, 'backdrop.position', L.maxCoordinate),
    width: num(o.width, 'backdrop.width', 0.01, L.maxCoordinate),
    height: num(o.height, 'backdrop.height', 0.01, L.maxCoordinate),
  };
}

function camera(v: unknown, path: string): CameraPreset {
  const o = obj(v, path);
  const id = str(o.id, `${path}.id`, 1, 64);
  if (!CAMERA_ID.test(id)) throw new SceneSpecError(`${path}.id`);
  const position = vec3(o.position, `${path}.position`, L.maxCoordinate);
  const target = vec3(o.target, `${path}.target`, L.maxCoordinate);
  if (Math.hypot(position[0] - target[0], position[1] - target[1], position[2] - target[2]) < 1e-3) {
    throw new SceneSpecError(`${path}.target`);
  }
  return {
    id,
    name: str(o.name, `${path}.name`, 1, 80),
    position,
    target,
    focalLengthMm: num(o.focalLengthMm, `${path}.focalLengthMm`, 4, 1_200),
  };
}

function edit(v: unknown, path: string): EditRecord {
  const o = obj(v, path);
  return {
    version: int(o.version, `${path}.version`, 1, 1_000_000),
    instruction: str(o.instruction, `${path}.instruction`, 0, L.maxInstructionLength),
    changes: arr(o.changes, `${path}.changes`, 0, L.maxChangesPerEdit).map((c, i) => str(c, `${path}.changes[${i}]`, 1, 200)),
  };
}

function obj(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SceneSpecError(path);
  return v as Record<string, unknown>;
}

function arr(v: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(v) || v.length < min || v.length > max) throw new SceneSpecError(path);
  return v;
}

function num(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new SceneSpecError(path);
  return v;
}

function int(v: unknown, path: string, min: number, max: number): number {
  const n = num(v, path, min, max);
  if (!Number.isInteger(n)) throw new SceneSpecError(path);
  return n;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new SceneSpecError(path);
  return v;
}

function str(v: unknown, path: string, min: number, max: number): string {
  if (typeof v !== 'string' || v.length < min || v.length > max) throw new SceneSpecError(path);
  return v;
}

function hex(v: unknown, path: string): string {
  if (typeof v !== 'string' || !HEX.test(v)) throw new SceneSpecError(path);
  return v.toLowerCase();
}

function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) throw new SceneSpecError(path);
  return v as T;
}

function vec3(v: unknown, path: string, bound: number): Vec3 {
  const a = arr(v, path, 3, 3);
  return [num(a[0], `${path}[0]`, -bound, bound), num(a[1], `${path}[1]`, -bound, bound), num(a[2], `${path}[2]`, -bound, bound)];
}
