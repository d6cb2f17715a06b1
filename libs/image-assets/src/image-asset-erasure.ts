import { BlobStore, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { ImageAssetsRepository } from './image-assets.repository';

/**
 * Erases an attached source image once nothing needs it: a deleted scene's purge (libs/operations
 * ScenePurge) asks, and says through `stillUsed` whether another scene names the image, since
 * only scenes know that.
 */
@Injectable()
export class ImageAssetErasure {
  constructor(
    private readonly assets: ImageAssetsRepository,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * In the caller's transaction: locks the asset first, then asks `stillUsed`, so a scene
   * creation attaching it concurrently either committed before (and is seen) or waits for the
   * lock and finds the asset gone (`source_asset_not_found`). True when it erased the row and
   * the bytes; false when the asset is in use or already gone.
   */
  async eraseUnlessUsed(tx: Tx, id: string, stillUsed: () => Promise<boolean>): Promise<boolean> {
    const asset = await this.assets.lockById(tx, id);
    if (!asset || (await stillUsed())) return false;
    await this.blobs.delete([asset.blobKey], tx);
    await this.assets.deleteByIds(tx, [asset.id]);
    return true;
  }
}
