export * from './idempotency';
export * from './idempotency.module';
export * from './idempotency.repository';
export * from './idempotency.jobs';
