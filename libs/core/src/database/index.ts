export * from './database.module';
export * from './database.options';
export * from './migrate';
export { migrations } from './migrations';
export * from './pool-query';
export * from './in-batches';
export * from './raw-sql';
export * from './transformers';
