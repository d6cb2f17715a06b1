export * from './blob-store';
export * from './blob-store.module';
export * from './postgres-blob-store';
export * from './s3-blob-store';
export * from './blob-orphan-sweep';
export * from './pending-blob.entity';
