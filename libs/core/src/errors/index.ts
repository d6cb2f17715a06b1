export * from './domain-error';
export * from './error-codes';
export * from './error-table';
export * from './infrastructure';
