export * from './generation.module';
export * from './glb';
export * from './http/http-scene.generator';
export { ProceduralSceneGenerator, sceneSeed } from './procedural/procedural-scene.generator';
export * from './scene-generator';
export * from './scene-spec';
export * from './scene-spec.parser';
