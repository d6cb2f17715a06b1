import { declareJob, MAINTENANCE_QUEUE } from '@app/core';

/** The queue of generation work: admitted operations, one job each (jobId = operation id). */
export const SCENES_QUEUE = 'scenes';

/** The generation pipeline's jobs; their names are in Redis: never change one (nor the queue's). */
export const SceneJob = {
  Generate: declareJob<{ operationId: string }>()('scene.generate', SCENES_QUEUE),
  Edit: declareJob<{ operationId: string }>()('scene.edit', SCENES_QUEUE),
  // docs/api.md promises a deleted scene's files and texts are erased within 24 hours; every
  // 5 minutes leaves room for a backlog (or a failing run) many times over.
  PurgeDeleted: declareJob()('scenes.purge-deleted', MAINTENANCE_QUEUE, { everyMs: 5 * 60_000 }),
  // A deletion's follow-ups (its embed sessions marked revoked and announced), one job per
  // deleted scene, enqueued once the deletion commits (jobId = `finish-deletion-<sceneId>`).
  FinishDeletion: declareJob<{ sceneId: string }>()('scenes.finish-deletion', MAINTENANCE_QUEUE),
  PurgeOldOperations: declareJob()('scenes.purge-old-operations', MAINTENANCE_QUEUE, { everyMs: 60 * 60_000 }),
} as const;

export const OPERATION_JOBS = Object.values(SceneJob);
