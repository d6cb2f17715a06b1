import type { SceneDrawing } from '@app/generation';

/**
 * The fields of a stored spec that draw the scene. Every field of SceneDrawing is listed (the
 * compiler asks for a new one), and only these are kept: a generator's own fields (the procedural
 * generator's terrain, props, biome, palette, source-image digest…) are read from the prompt and
 * the edits, so they stay with the authoring data.
 */
const DRAWING_FIELDS: Record<keyof SceneDrawing, true> = {
  schemaVersion: true,
  sky: true,
  lighting: true,
  fog: true,
  cameras: true,
  world: true,
};

/**
 * A version's spec without how the scene was asked for: no prompt, no edit history, nothing
 * derived from them. An allowlist, so a field a generator adds later is left out until it is
 * listed here.
 */
export function sceneDrawing(spec: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([field]) => Object.hasOwn(DRAWING_FIELDS, field)));
}
