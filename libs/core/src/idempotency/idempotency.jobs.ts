import { declareJob, MAINTENANCE_QUEUE } from '../queue/job-declaration';

/** Core's own jobs: the sweep of expired idempotency records, and of stored objects whose row never committed. */
export const CoreJob = {
  IdempotencyPurgeExpired: declareJob()('idempotency.purge-expired', MAINTENANCE_QUEUE, { everyMs: 15 * 60_000 }),
  BlobsPurgeOrphans: declareJob()('blobs.purge-orphans', MAINTENANCE_QUEUE, { everyMs: 15 * 60_000 }),
} as const;

export const CORE_JOBS = Object.values(CoreJob);
