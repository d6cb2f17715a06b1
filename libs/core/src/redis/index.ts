export * from './redis';
export * from './redis-circuit';
