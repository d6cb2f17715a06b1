export * from './artifacts';
export * from './provider-http';
export * from './provider-view';
export * from './provider-files';
