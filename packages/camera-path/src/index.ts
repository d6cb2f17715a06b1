export * from './camera-path.schema';
export * from './camera-path.validate';
export * from './saved-camera-path';
