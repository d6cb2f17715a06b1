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
  SceneGenerate = 'scene.generate',
  SceneEdit = 'scene.edit',
  ImageAssetsPurgeExpired = 'image-assets.purge-expired',
  IdempotencyPurgeExpired = 'idempotency.purge-expired',
  EmbedSessionsEndExpired = 'embed-sessions.end-expired',
  WebhooksPurgeOld = 'webhooks.purge-old',
  ScenesPurgeDeleted = 'scenes.purge-deleted',
  ScenesPurgeOldOperations = 'scenes.purge-old-operations',
  EmbedSessionsPurgeEnded = 'embed-sessions.purge-ended',
}

export type JobItem =
  | { name: JobName.SceneGenerate; data: { operationId: string } }
  | { name: JobName.SceneEdit; data: { operationId: string } }
  | { name: JobName.ImageAssetsPurgeExpired; data: Record<string, never> }
  | { name: JobName.IdempotencyPurgeExpired; data: Record<string, never> }
  | { name: JobName.EmbedSessionsEndExpired; data: Record<string, never> }
  | { name: JobName.WebhooksPurgeOld; data: Record<string, never> }
  | { name: JobName.ScenesPurgeDeleted; data: Record<string, never> }
  | { name: JobName.ScenesPurgeOldOperations; data: Record<string, never> }
  | { name: JobName.EmbedSessionsPurgeEnded; data: Record<string, never> };

export type JobData<N extends JobName> = Extract<JobItem, { name: N }>['data'];

export const JOB_QUEUE: Record<JobName, QueueName> = {
  [JobName.SceneGenerate]: QueueName.Scenes,
  [JobName.SceneEdit]: QueueName.Scenes,
  [JobName.ImageAssetsPurgeExpired]: QueueName.Maintenance,
  [JobName.IdempotencyPurgeExpired]: QueueName.Maintenance,
  [JobName.EmbedSessionsEndExpired]: QueueName.Maintenance,
  [JobName.WebhooksPurgeOld]: QueueName.Maintenance,
  [JobName.ScenesPurgeDeleted]: QueueName.Maintenance,
  [JobName.ScenesPurgeOldOperations]: QueueName.Maintenance,
  [JobName.EmbedSessionsPurgeEnded]: QueueName.Maintenance,
};

/** Repeatable maintenance, registered idempotently by every worker replica at boot. */
export const JOB_SCHEDULES: { name: JobName; everyMs: number }[] = [
  { name: JobName.ImageAssetsPurgeExpired, everyMs: 5 * 60_000 },
  { name: JobName.IdempotencyPurgeExpired, everyMs: 15 * 60_000 },
  // Expiry happens by the clock alone; this notices it for `embed_session.ended` webhooks.
  { name: JobName.EmbedSessionsEndExpired, everyMs: 30_000 },
  { name: JobName.WebhooksPurgeOld, everyMs: 60 * 60_000 },
  // Contract section 8: a deleted scene's files and texts are erased within 24 hours; every
  // 5 minutes leaves room for a backlog (or a failing run) many times over.
  { name: JobName.ScenesPurgeDeleted, everyMs: 5 * 60_000 },
  { name: JobName.ScenesPurgeOldOperations, everyMs: 60 * 60_000 },
  { name: JobName.EmbedSessionsPurgeEnded, everyMs: 60 * 60_000 },
];
