export * from './sha256';
