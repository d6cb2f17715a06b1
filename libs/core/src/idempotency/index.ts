export * from './idempotency';
export * from './idempotency.module';
