/**
 * The single declaration of every queue, job name and payload. Job names are string literals,
 * never derived from class names, so a rename cannot orphan jobs already waiting in Redis.
 * Payloads carry ids only; handlers load current state from the database.
 */
export enum QueueName {
  Scenes = 'scenes',
  Maintenance = 'maintenance',
}

export enum JobName {
  ImageAssetsPurgeExpired = 'image-assets.purge-expired',
}

export type JobItem = { name: JobName.ImageAssetsPurgeExpired; data: Record<string, never> };

export type JobData<N extends JobName> = Extract<JobItem, { name: N }>['data'];

export const JOB_QUEUE: Record<JobName, QueueName> = {
  [JobName.ImageAssetsPurgeExpired]: QueueName.Maintenance,
};

/** Repeatable maintenance, registered idempotently by every worker replica at boot. */
export const JOB_SCHEDULES: { name: JobName; everyMs: number }[] = [
  { name: JobName.ImageAssetsPurgeExpired, everyMs: 5 * 60_000 },
];
