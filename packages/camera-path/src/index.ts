export * from './camera-path.schema';
export * from './camera-path.validate';
