import { CameraPreset, PropKind, PropSpec, SceneSpec, Vec3 } from '../scene-spec';
import { SCENE_SPEC_LIMITS } from '../scene-spec.parser';
import { mixHex } from './colors';
import { clampCameras } from './camera-presets';
import { BIOME_PRESETS, DEFAULT_ADD_COUNT, atmosphere, fogFor, lightest, snowColors, tintTerrain } from './presets';
import { Prng, round, seedFrom } from './prng';
import { biomeMentioned, timeMentioned } from './prompt-traits';
import { Ground, restingHeight, scatterProps, settleProps } from './prop-placement';
import { carveLake, colorPicker, composeScene } from './scene-composer';
import { createHeightField } from './terrain-field';
import {
  FOG_WORDS,
  LAKE_WORDS,
  OVERCAST_WORDS,
  PROP_WORDS,
  RAIN_WORDS,
  SEA_WORDS,
  SNOWFALL_WORDS,
  SNOW_COVER_WORDS,
  TREE_KINDS,
  mentionedPropKinds,
  mentions,
  normalizeText,
} from './vocabulary';

type Intent = 'add' | 'remove' | 'fewer';

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  twenty: 20,
  dozen: 12,
};
const MAX_ADDED_PER_CLAUSE = 100;
const WARM = '#ff9a3c';
const COLD = '#5b8cff';

/**
 * Applies a free-text instruction to a spec and returns the next version's spec.
 *
 * The instruction is split into clauses ("make it night and add fog") and each clause is read
 * for keywords: time of day, weather, fog, snow, water, prop kinds with add/remove/fewer,
 * warmer/colder, brighter/darker, camera moves, or a change of setting ("turn it into a desert").
 * An instruction that matches nothing is still a new version: it is recorded and the props are
 * nudged with a fresh seed, so "try again" does something visible. Never throws for wording.
 */
export function applyEdit(previous: SceneSpec, instruction: string, version: number): SceneSpec {
  const prng = new Prng(seedFrom('edit', String(previous.seed), String(version), instruction));
  let spec = clone(previous);
  const changes: string[] = [];
  const text = normalizeText(instruction).slice(0, SCENE_SPEC_LIMITS.maxInstructionLength);
  const clauses = text
    .split(/[,;.!?\n]+|\b(?:and|then|also|but|plus)\b/)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
  for (const clause of clauses) spec = applyClause(spec, clause, prng, changes);

  if (changes.length === 0) spec.props = jitterProps(spec, prng);
  const ground = groundOf(spec);
  spec.props = settleProps(spec.props, ground);
  spec.cameras = clampCameras(spec.cameras, ground);
  spec.edits = [
    ...spec.edits,
    {
      version,
      instruction: instruction.trim().slice(0, SCENE_SPEC_LIMITS.maxInstructionLength),
      changes: dedupe(changes).slice(0, SCENE_SPEC_LIMITS.maxChangesPerEdit),
    },
  ].slice(-SCENE_SPEC_LIMITS.maxEdits);
  return spec;
}

function applyClause(input: SceneSpec, clause: string, prng: Prng, changes: string[]): SceneSpec {
  let spec = input;
  const intent = intentOf(clause);

  const biome = biomeMentioned(clause);
  if (biome && biome !== 'snow' && /\b(make it|turn|change|transform|convert|into|become|becomes)\b/.test(clause)) {
    spec = recompose(spec, biome);
    changes.push(`biome:${biome}`);
  }

  const time = intent === 'add' ? timeMentioned(clause) : null;
  if (time) {
    spec.timeOfDay = time;
    relight(spec);
    changes.push(`time:${time}`);
  }

  if (mentions(clause, SNOWFALL_WORDS) && intent === 'add') {
    spec.weather = 'snowfall';
    spec.fog ??= fogFor('snowfall', spec.sky, spec.terrain.size);
    setSnowCover(spec, true);
    relight(spec);
    changes.push('weather:snowfall', 'snow:on');
  } else if (mentions(clause, SNOW_COVER_WORDS)) {
    setSnowCover(spec, intent === 'add');
    if (intent !== 'add' && spec.weather === 'snowfall') {
      spec.weather = 'clear';
      relight(spec);
    }
    changes.push(intent === 'add' ? 'snow:on' : 'snow:off');
  }

  if (mentions(clause, RAIN_WORDS)) {
    spec.weather = intent === 'add' ? 'rain' : 'clear';
    if (intent === 'add') spec.fog ??= fogFor('rain', spec.sky, spec.terrain.size);
    relight(spec);
    changes.push(`weather:${spec.weather}`);
  } else if (mentions(clause, OVERCAST_WORDS)) {
    spec.weather = intent === 'add' ? 'overcast' : 'clear';
    relight(spec);
    changes.push(`weather:${spec.weather}`);
  } else if (/\b(clear (sky|skies|weather)|sunny|blue sk(y|ies)|fair weather)\b/.test(clause) && spec.weather !== 'clear') {
    spec.weather = 'clear';
    relight(spec);
    changes.push('weather:clear');
  }

  if (mentions(clause, FOG_WORDS)) {
    if (intent === 'remove') {
      spec.fog = null;
      changes.push('fog:off');
    } else if (intent === 'fewer') {
      if (spec.fog) spec.fog = { ...spec.fog, near: round(spec.fog.near * 1.5), far: round(spec.fog.far * 1.8) };
      changes.push('fog:thinner');
    } else {
      spec.fog = spec.fog
        ? { ...spec.fog, near: round(spec.fog.near * 0.6), far: round(Math.max(spec.fog.near * 0.6 + 1, spec.fog.far * 0.6)) }
        : fogFor('fog', spec.sky, spec.terrain.size);
      changes.push('fog:on');
    }
  }

  const namesProps = mentionedPropKinds(clause).length > 0;
  if (mentions(clause, LAKE_WORDS) || mentions(clause, SEA_WORDS)) {
    // "remove the boats from the lake" is about boats: only drain when the clause names no props.
    if (intent === 'add') {
      ensureWater(spec, prng, changes);
    } else if (!namesProps && spec.water) {
      spec.water = null;
      spec.terrain = { ...spec.terrain, basin: null };
      changes.push('water:off');
    }
  }

  editProps(spec, clause, intent, prng, changes);
  if (intent === 'add' && /\b(forest|forests|woods|woodland|grove)\b/.test(clause) && !mentions(clause, PROP_WORDS.tree)) {
    addProps(spec, treeKindFor(spec), DEFAULT_ADD_COUNT.tree * 2, prng, changes);
  }

  if (/\b(warmer|warm)\b/.test(clause)) {
    tone(spec, WARM);
    changes.push('tone:warmer');
  } else if (/\b(colder|cooler|cold|cool)\b/.test(clause)) {
    tone(spec, COLD);
    changes.push('tone:colder');
  }

  if (/\b(brighter|more light)\b|\blighter\b(?! fog)/.test(clause)) {
    scaleLight(spec, 1.3);
    changes.push('light:brighter');
  } else if (/\b(darker|dimmer|moodier)\b/.test(clause)) {
    scaleLight(spec, 0.7);
    changes.push('light:darker');
  }

  editCameras(spec, clause, changes);
  return spec;
}

function intentOf(clause: string): Intent {
  if (/\b(fewer|less|reduce|thin out|thinner|sparser|lighter fog)\b/.test(clause)) return 'fewer';
  if (/\b(remove|delete|without|get rid of|take away|take out|eliminate|clear (the|all|away)|drain|melt|stop|no|none|dry)\b/.test(clause)) {
    return 'remove';
  }
  return 'add';
}

function editProps(spec: SceneSpec, clause: string, intent: Intent, prng: Prng, changes: string[]): void {
  for (const kind of mentionedPropKinds(clause)) {
    // "the trees" means every tree-like kind; "pines" means pines.
    const targets = kind === 'tree' ? TREE_KINDS : [kind];
    if (intent === 'remove') {
      const before = spec.props.length;
      spec.props = spec.props.filter((p) => !targets.includes(p.kind));
      changes.push(`props:${kind}-${before - spec.props.length}`);
    } else if (intent === 'fewer') {
      let seen = 0;
      const before = spec.props.length;
      spec.props = spec.props.filter((p) => !targets.includes(p.kind) || seen++ % 2 === 1);
      changes.push(`props:${kind}-${before - spec.props.length}`);
    } else {
      const addKind = kind === 'tree' ? treeKindFor(spec) : kind;
      if (addKind === 'boat') ensureWater(spec, prng, changes);
      addProps(spec, addKind, countIn(clause, DEFAULT_ADD_COUNT[addKind]), prng, changes);
    }
  }
}

function addProps(spec: SceneSpec, kind: PropKind, count: number, prng: Prng, changes: string[]): void {
  const room = SCENE_SPEC_LIMITS.maxProps - spec.props.length;
  const pick = colorPicker({ autumn: false, snowCover: spec.terrain.snowCover, sourcePalette: spec.backdrop ? spec.palette : null });
  const added = scatterProps(groundOf(spec), spec.props, kind, Math.max(0, Math.min(count, room)), prng, pick);
  spec.props = [...spec.props, ...added];
  changes.push(`props:${kind}+${added.length}`);
}

/** How many props a clause asks for: "add 5 rocks", "a few", "lots of", "a tree", or the default. */
function countIn(clause: string, fallback: number): number {
  const digits = clause.match(/\b(\d+)\b/);
  if (digits) return Math.min(MAX_ADDED_PER_CLAUSE, Number(digits[1]));
  for (const [word, n] of Object.entries(NUMBER_WORDS)) if (new RegExp(`\\b${word}\\b`).test(clause)) return n;
  if (/\b(a few|a couple|some)\b/.test(clause)) return Math.min(fallback, 3);
  if (/\b(lots|many|a lot|plenty|much more)\b/.test(clause)) return fallback * 2;
  if (/\b(a|an|another|single)\b/.test(clause)) return 1;
  return fallback;
}

function treeKindFor(spec: SceneSpec): PropKind {
  if (spec.biome === 'ocean') return 'palm';
  if (spec.terrain.snowCover || spec.biome === 'mountains' || spec.biome === 'snow') return 'pine';
  return 'tree';
}

function ensureWater(spec: SceneSpec, prng: Prng, changes: string[]): void {
  if (spec.water) return;
  const lake = carveLake(spec.terrain, prng);
  spec.terrain = { ...spec.terrain, basin: lake.basin };
  spec.water = lake.water;
  changes.push('water:lake');
}

function setSnowCover(spec: SceneSpec, on: boolean): void {
  if (spec.terrain.snowCover === on) return;
  const preset = BIOME_PRESETS[spec.biome].colors;
  const base = spec.backdrop ? tintTerrain(preset, spec.palette) : preset;
  spec.terrain = { ...spec.terrain, snowCover: on, colors: on ? snowColors(spec.terrain.colors) : base };
  if (on) {
    const foliage: PropKind[] = ['tree', 'pine', 'palm', 'bush'];
    spec.props = spec.props.map((p) => (foliage.includes(p.kind) ? { ...p, color: mixHex(p.color, '#eef3f8', 0.3) } : p));
  }
}

/** Recomputes sky and lights for the current time and weather; fog follows the horizon. */
function relight(spec: SceneSpec): void {
  const { sky, lighting } = atmosphere(spec.timeOfDay, spec.weather, spec.seed, spec.backdrop ? lightest(spec.palette) : null);
  spec.sky = sky;
  spec.lighting = lighting;
  if (spec.fog) spec.fog = { ...spec.fog, color: sky.horizon };
}

/** A new setting for the same prompt: keeps the time, weather, fog, palette and backdrop. */
function recompose(spec: SceneSpec, biome: SceneSpec['biome']): SceneSpec {
  const next = composeScene(
    {
      prompt: spec.prompt,
      seed: spec.seed,
      sourcePalette: spec.backdrop ? spec.palette : null,
      backdrop: spec.backdrop ? { sourceSha256: spec.backdrop.sourceSha256, aspect: spec.backdrop.width / spec.backdrop.height } : null,
    },
    { biome, timeOfDay: spec.timeOfDay, weather: spec.weather, fog: false, snowCover: biome === 'snow', water: null, props: [] },
  );
  return { ...next, fog: spec.fog ? { ...spec.fog, color: next.sky.horizon } : next.fog, edits: spec.edits };
}

function tone(spec: SceneSpec, toward: string): void {
  const t = (c: string, amount = 0.15) => mixHex(c, toward, amount);
  spec.sky = { top: t(spec.sky.top), horizon: t(spec.sky.horizon) };
  spec.lighting = {
    sun: { ...spec.lighting.sun, color: t(spec.lighting.sun.color) },
    ambient: { ...spec.lighting.ambient, color: t(spec.lighting.ambient.color) },
  };
  if (spec.fog) spec.fog = { ...spec.fog, color: t(spec.fog.color) };
  const c = spec.terrain.colors;
  spec.terrain = { ...spec.terrain, colors: { low: t(c.low, 0.1), mid: t(c.mid, 0.1), high: t(c.high, 0.1), shore: t(c.shore, 0.1) } };
}

function scaleLight(spec: SceneSpec, factor: number): void {
  const cap = (v: number) => round(Math.min(50, v * factor));
  spec.lighting = {
    sun: { ...spec.lighting.sun, intensity: cap(spec.lighting.sun.intensity) },
    ambient: { ...spec.lighting.ambient, intensity: cap(spec.lighting.ambient.intensity) },
  };
}

function editCameras(spec: SceneSpec, clause: string, changes: string[]): void {
  const aboutCamera = /\b(camera|cameras|view|shot|angle|lens)\b/.test(clause);
  const move = (f: (c: CameraPreset) => CameraPreset, change: string) => {
    spec.cameras = spec.cameras.map(f);
    changes.push(change);
  };
  if (/\bzoom in\b/.test(clause)) {
    move((c) => ({ ...c, focalLengthMm: Math.min(600, c.focalLengthMm * 1.5) }), 'camera:zoom-in');
  } else if (/\bzoom out\b/.test(clause)) {
    move((c) => ({ ...c, focalLengthMm: Math.max(10, c.focalLengthMm / 1.5) }), 'camera:zoom-out');
  }
  if (/\b(closer|nearer|move in|push in)\b/.test(clause)) {
    move((c) => dolly(c, 0.7), 'camera:closer');
  } else if (/\b(farther|further|further away|back up|pull back|pull out)\b/.test(clause)) {
    move((c) => dolly(c, 1.4), 'camera:farther');
  }
  const lift = spec.terrain.size * 0.08;
  if (aboutCamera && /\b(higher|raise|from above|up)\b/.test(clause)) {
    move((c) => ({ ...c, position: [c.position[0], c.position[1] + lift, c.position[2]] }), 'camera:higher');
  } else if (aboutCamera && /\b(lower|from below|down)\b/.test(clause)) {
    move((c) => ({ ...c, position: [c.position[0], c.position[1] - lift, c.position[2]] }), 'camera:lower');
  }
}

function dolly(c: CameraPreset, factor: number): CameraPreset {
  const position = c.position.map((p, i) => c.target[i] + (p - c.target[i]) * factor) as Vec3;
  return { ...c, position };
}

/** Small seeded nudges, used when an instruction matched nothing; a prop that would land badly stays put. */
function jitterProps(spec: SceneSpec, prng: Prng): PropSpec[] {
  const ground = groundOf(spec);
  return spec.props.map((p) => {
    const moved: PropSpec = {
      ...p,
      position: [round(p.position[0] + prng.range(-0.75, 0.75)), p.position[1], round(p.position[2] + prng.range(-0.75, 0.75))],
      rotationY: round(p.rotationY + prng.range(-0.35, 0.35)),
    };
    return restingHeight(moved, ground) === null ? p : moved;
  });
}

function groundOf(spec: SceneSpec): Ground {
  return { terrain: spec.terrain, water: spec.water, field: createHeightField(spec.terrain) };
}

function clone(spec: SceneSpec): SceneSpec {
  return JSON.parse(JSON.stringify(spec)) as SceneSpec;
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}
