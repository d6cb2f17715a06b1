import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config';
import { BlobEntity } from './blob.entity';
import { BlobStore } from './blob-store';
import { PostgresBlobStore } from './postgres-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The store named by BLOB_STORE: the `blobs` table (default) or an S3-compatible bucket. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([BlobEntity])],
  providers: [
    {
      provide: BlobStore,
      inject: [AppConfig, DataSource],
      useFactory: (config: AppConfig, db: DataSource) =>
        config.blobStore.kind === 's3' ? new S3BlobStore(config) : new PostgresBlobStore(db),
    },
  ],
  exports: [BlobStore],
})
export class BlobStoreModule {}
