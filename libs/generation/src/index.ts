export * from './generation.module';
export * from './http/http-scene.generator';
export { ProceduralScene, ProceduralSceneGenerator, sceneSeed } from './procedural/procedural-scene.generator';
export * from './scene-generator';
export * from './providers';
export * from './providers/worldlabs/worldlabs-scene.generator';
export * from './splat-previews';
export * from './providers/meshy/meshy-scene.generator';
// The scene spec, its parser and the GLB and SPZ readers and writers live in the world engine
// package (the engine is built on them); re-exported so that callers keep one import.
export * from '@scene-studio/world-engine';
export * from './generation.config';
export * from './test-mode/test-mode-scene.generator';
