import { ImageAssetEntity } from '@app/image-assets/image-asset.entity';
import { ImageAssetsRepository } from '@app/image-assets/image-assets.repository';
import { UNATTACHED_LIFETIME_MS } from '@app/image-assets/image-rules';
import { createHash, randomUUID } from 'node:crypto';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/** Assets these examples upload: one a scene attaches, one that expires (test mode) and is swept. */
const ids = { attached: `img_q_${randomUUID()}`, expiring: `img_q_${randomUUID()}` };

/** An upload as ImageAssetsService.upload records it: unattached, expiring in 24 hours. */
function upload(f: Fixtures, id: string): ImageAssetEntity {
  return {
    id,
    organizationId: f.organizationId,
    format: 'png',
    width: 1920,
    height: 1080,
    sizeBytes: 204_800,
    sha256: createHash('sha256').update(id).digest('hex'),
    status: 'unattached',
    blobKey: `image-assets/${id}`,
    createdAt: f.now,
    expiresAt: new Date(f.now.getTime() + UNATTACHED_LIFETIME_MS),
    attachedAt: null,
  };
}

export const imageAssetsExamples: RepositoryExamples<unknown>[] = [
  examplesOf<ImageAssetsRepository>({
    type: ImageAssetsRepository,
    make: (db) => new ImageAssetsRepository(db),
    calls: {
      transaction: (r) => r.transaction(async () => undefined),
      insert: async (r, tx, f) => {
        await r.insert(upload(f, ids.attached), tx);
        await r.insert(upload(f, ids.expiring), tx);
      },
      findAvailable: (r, _tx, f) => r.findAvailable(f.organizationId, ids.attached, f.now),
      // A scene's creation attaching its source (ImageAssetsService.attachForScene).
      lockAvailable: (r, tx, f) => r.lockAvailable(tx, f.organizationId, ids.attached, f.now),
      markAttached: (r, tx, f) => r.markAttached(tx, ids.attached, f.now),
      // Test mode's clock: the other upload expires now, and the sweeper then takes it.
      expireNow: (r, _tx, f) => r.expireNow(f.organizationId, ids.expiring, f.now),
      lockById: (r, tx) => r.lockById(tx, ids.attached),
      findById: (r) => r.findById(ids.attached),
      lockExpiredBatch: (r, tx, f) => r.lockExpiredBatch(tx, f.now, 200),
      deleteByIds: (r, tx) => r.deleteByIds(tx, [ids.expiring]),
    },
  }),
];
