export * from './app-config';
export * from './config.module';
export * from './config.schema';
export * from './config-slice';
