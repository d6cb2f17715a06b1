export * from './fake-dns-server';
export * from './log-capture';
export * from './tcp-proxy';
export * from './test-database';
