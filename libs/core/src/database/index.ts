export * from './database.module';
export * from './database.options';
export * from './migrate';
export { CORE_MIGRATIONS } from './migrations';
export * from './migration-list';
export * from './pool-query';
export * from './in-batches';
export * from './raw-sql';
export * from './transformers';
