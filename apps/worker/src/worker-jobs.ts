import { CORE_JOBS, JobRegistry } from '@app/core';
import { EMBED_SESSION_JOBS } from '@app/embed-sessions';
import { IMAGE_ASSET_JOBS } from '@app/image-assets';
import { SCENE_JOBS } from '@app/scenes';
import { WEBHOOK_JOBS } from '@app/webhooks';

/**
 * Every job the worker runs, from each lib's `<lib>.jobs.ts`: the queues it consumes, the
 * schedules it upserts, and the names that must each have exactly one `@OnJob` handler at boot.
 */
export const WORKER_JOBS = JobRegistry.of(CORE_JOBS, SCENE_JOBS, IMAGE_ASSET_JOBS, EMBED_SESSION_JOBS, WEBHOOK_JOBS);
