import { declareJob, MAINTENANCE_QUEUE } from '../queue/job-declaration';

/** Core's own job: the sweep of expired idempotency records. */
export const CoreJob = {
  IdempotencyPurgeExpired: declareJob()('idempotency.purge-expired', MAINTENANCE_QUEUE, { everyMs: 15 * 60_000 }),
} as const;

export const CORE_JOBS = Object.values(CoreJob);
