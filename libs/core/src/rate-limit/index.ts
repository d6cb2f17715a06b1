export * from './rate-limiter';
export * from './sliding-window';
