export * from './logging.module';
export * from './scrub-secrets';
