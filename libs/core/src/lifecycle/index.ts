export * from './process-stops';
