import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config';
import { BlobEntity } from './blob.entity';
import { BlobLedger } from './blob-ledger';
import { BlobOrphanSweep } from './blob-orphan-sweep';
import { BlobStore } from './blob-store';
import { LedgeredS3BlobStore } from './ledgered-s3-blob-store';
import { PendingBlobEntity } from './pending-blob.entity';
import { PostgresBlobStore } from './postgres-blob-store';

/**
 * The store named by BLOB_STORE: the `blobs` table (default) or an S3-compatible bucket, whose
 * writes go through the ledger so that no object outlives a rolled-back row (BlobLedger), and the
 * sweep of those that did (a maintenance job, run by the worker only).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([BlobEntity, PendingBlobEntity])],
  providers: [
    BlobLedger,
    {
      provide: BlobStore,
      inject: [AppConfig, DataSource, BlobLedger],
      useFactory: (config: AppConfig, db: DataSource, ledger: BlobLedger) =>
        config.blobStore.kind === 's3' ? new LedgeredS3BlobStore(config, ledger) : new PostgresBlobStore(db),
    },
    BlobOrphanSweep,
  ],
  exports: [BlobStore, BlobOrphanSweep],
})
export class BlobStoreModule {}
