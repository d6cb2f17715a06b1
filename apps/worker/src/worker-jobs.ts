import { CORE_JOBS, JobRegistry } from '@app/core';
import { EMBED_SESSION_JOBS } from '@app/embed-sessions';
import { IMAGE_ASSET_JOBS } from '@app/image-assets';
import { OPERATION_JOBS } from '@app/operations';
import { WEBHOOK_JOBS } from '@app/webhooks';

/**
 * Every job the worker runs, from each lib's `<lib>.jobs.ts`: the queues it consumes, the
 * schedules it upserts, and the names that must each have exactly one `@OnJob` handler at boot.
 */
export const WORKER_JOBS = JobRegistry.of(CORE_JOBS, OPERATION_JOBS, IMAGE_ASSET_JOBS, EMBED_SESSION_JOBS, WEBHOOK_JOBS);
