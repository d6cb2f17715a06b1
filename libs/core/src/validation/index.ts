export * from './user-text';
