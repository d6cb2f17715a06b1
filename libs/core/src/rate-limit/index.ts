export * from './credential-lookups';
export * from './rate-limit.module';
export * from './rate-limiter';
export * from './sliding-window';
