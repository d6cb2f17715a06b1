import { declareJob, MAINTENANCE_QUEUE } from '@app/core';

/** The webhooks' job; its name is in Redis: never change it. */
export const WebhookJob = {
  PurgeOld: declareJob()('webhooks.purge-old', MAINTENANCE_QUEUE, { everyMs: 60 * 60_000 }),
} as const;

export const WEBHOOK_JOBS = Object.values(WebhookJob);
