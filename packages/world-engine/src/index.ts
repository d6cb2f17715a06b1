/**
 * @scene-studio/world-engine: the procedural world engine, free of any framework. It composes a
 * scene spec from a prompt (terrain, water, props, lights, cameras), edits one by instruction,
 * writes it as a glTF binary and samples it into Gaussian splats (SPZ). Deterministic: the same
 * inputs give byte-identical output. Units: one unit is one metre, +Y up, the ground around
 * y = 0 (scene-spec.ts, "Conventions").
 *
 * The scene spec, its parser and the GLB and SPZ readers and writers live here because the
 * engine is built on them; the server's generation lib re-exports them for its callers.
 */
export * from './scene-spec';
export * from './scene-spec.parser';
export * from './glb';
export * from './spz/spz';
export { composeScene, TERRAIN_SIZE, TERRAIN_SEGMENTS } from './procedural/scene-composer';
export type { ComposeInput } from './procedural/scene-composer';
export { applyEdit } from './procedural/scene-editor';
export { writeSceneGlb } from './procedural/glb-writer';
export { dominantColors } from './procedural/palette';
export { seedFrom } from './procedural/prng';
export { sampleSceneSplats } from './procedural/splat-sampler';
export type { SplatSamplingOptions } from './procedural/splat-sampler';
