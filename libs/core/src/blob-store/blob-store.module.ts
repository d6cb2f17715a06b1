import { Global, Module } from '@nestjs/common';
import { BlobStore } from './blob-store';
import { PostgresBlobStore } from './postgres-blob-store';

@Global()
@Module({ providers: [{ provide: BlobStore, useClass: PostgresBlobStore }], exports: [BlobStore] })
export class BlobStoreModule {}
