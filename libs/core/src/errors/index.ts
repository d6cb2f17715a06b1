export * from './domain-error';
export * from './error-codes';
export * from './infrastructure';
