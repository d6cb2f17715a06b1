export * from './redis-connection';
export * from './redis';
export * from './redis-circuit';
export * from './broadcasts';
