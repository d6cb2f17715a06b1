import { declareJob, JobRegistry, MAINTENANCE_QUEUE } from '@app/core';
import { WORKER_JOBS } from './worker-jobs';

describe('WORKER_JOBS', () => {
  it('keeps every job name, queue and schedule that Redis already holds', () => {
    // Names and queues are keys in Redis: a job waiting under an old name would never run.
    expect(
      Object.fromEntries(WORKER_JOBS.names().map((n) => [n, WORKER_JOBS.schedules().find((s) => s.name === n)?.everyMs ?? null])),
    ).toEqual({
      'idempotency.purge-expired': 15 * 60_000,
      'blobs.purge-orphans': 15 * 60_000,
      'scene.generate': null,
      'scene.edit': null,
      'scenes.purge-deleted': 5 * 60_000,
      'scenes.finish-deletion': null,
      'scenes.purge-old-operations': 60 * 60_000,
      'image-assets.purge-expired': 5 * 60_000,
      'embed-sessions.end-expired': 30_000,
      'embed-sessions.purge-ended': 60 * 60_000,
      'webhooks.purge-old': 60 * 60_000,
    });
    expect(WORKER_JOBS.queues().sort()).toEqual(['maintenance', 'scenes']);
  });
});

describe(JobRegistry.name, () => {
  it('refuses a job name declared twice', () => {
    const a = declareJob()('x.sweep', MAINTENANCE_QUEUE);
    expect(() => JobRegistry.of([a], [declareJob()('x.sweep', 'other')])).toThrow('job "x.sweep" is declared twice');
  });
});
