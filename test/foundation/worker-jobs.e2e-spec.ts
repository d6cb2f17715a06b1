import { MAINTENANCE_QUEUE, QueueService } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';

describe('worker job dispatch', () => {
  const logs = new LogCapture();
  const suite = setUpSuite({ api: false, worker: { logs, config: { LOG_LEVEL: 'warn' } } });

  it('skips a job whose name no release declares, logging it, and keeps working', async () => {
    const queue = suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE);
    // A job left in Redis by an older or newer release.
    const job = await queue.add('legacy.job-from-another-release', { anything: true });
    const state = await pollUntil(
      async () => (await queue.getJob(job.id!))?.getState(),
      (s) => s === 'completed' || s === 'failed',
      { what: 'the unknown job to be handled' },
    );
    expect(state).toBe('completed');
    expect((await queue.getJob(job.id!))!.returnvalue).toEqual({ skipped: true });
    expect(logs.records().map((r) => r.msg)).toContain(
      `skipping job ${job.id} with unknown name "legacy.job-from-another-release" on maintenance`,
    );

    // The worker still processes real jobs afterwards.
    const real = await queue.add('image-assets.purge-expired', {});
    await pollUntil(
      async () => (await queue.getJob(real.id!))?.getState(),
      (s) => s === 'completed',
      { what: 'a real job' },
    );
    expect((await queue.getJob(real.id!))!.returnvalue).toEqual({ deleted: 0 });
  });
});
