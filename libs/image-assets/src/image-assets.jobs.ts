import { declareJob, MAINTENANCE_QUEUE } from '@app/core';

/** The image assets' job; its name is in Redis: never change it. */
export const ImageAssetJob = {
  PurgeExpired: declareJob()('image-assets.purge-expired', MAINTENANCE_QUEUE, { everyMs: 5 * 60_000 }),
} as const;

export const IMAGE_ASSET_JOBS = Object.values(ImageAssetJob);
