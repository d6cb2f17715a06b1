import { BlobStore, Clock, OnJob } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { ImageAssetsRepository } from './image-assets.repository';
import { ImageAssetJob } from './image-assets.jobs';

const BATCH_SIZE = 200;
const MAX_BATCHES_PER_RUN = 50;

/** Deletes expired unattached assets and their bytes in bounded batches; safe on many replicas. */
@Injectable()
export class ImageAssetsSweeper {
  private readonly logger = new Logger(ImageAssetsSweeper.name);

  constructor(
    private readonly assets: ImageAssetsRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  @OnJob(ImageAssetJob.PurgeExpired)
  async purgeExpired(): Promise<{ deleted: number }> {
    const now = this.clock.now();
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
      const n = await this.assets.transaction(async (tx) => {
        const batch = await this.assets.lockExpiredBatch(tx, now, BATCH_SIZE);
        if (batch.length === 0) return 0;
        await this.blobs.delete(
          batch.map((b) => b.blobKey),
          tx,
        );
        await this.assets.deleteByIds(
          tx,
          batch.map((b) => b.id),
        );
        return batch.length;
      });
      deleted += n;
      if (n < BATCH_SIZE) break;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} expired image asset(s)`);
    return { deleted };
  }
}
