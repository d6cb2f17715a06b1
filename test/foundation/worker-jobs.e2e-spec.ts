import { QueueName, QueueService } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import { startWorker } from '../support/apps';
import { createTestEnvironment, TestEnvironment } from '../support/environment';
import { pollUntil } from '../support/poll';

describe('worker job dispatch', () => {
  let env: TestEnvironment;
  let worker: INestApplicationContext;
  const logs = new LogCapture();

  beforeAll(async () => {
    env = await createTestEnvironment();
    worker = await startWorker(env, { logs, config: { LOG_LEVEL: 'warn' } });
  });

  afterAll(async () => {
    await worker?.close();
    await env?.dispose();
  });

  it('skips a job whose name no release declares, logging it, and keeps working', async () => {
    const queue = worker.get(QueueService).queue(QueueName.Maintenance);
    // A job left in Redis by an older or newer release.
    const job = await queue.add('legacy.job-from-another-release', { anything: true });
    const state = await pollUntil(
      async () => (await queue.getJob(job.id!))?.getState(),
      (s) => s === 'completed' || s === 'failed',
      { what: 'the unknown job to be handled' },
    );
    expect(state).toBe('completed');
    expect((await queue.getJob(job.id!))!.returnvalue).toEqual({ skipped: true });
    expect(logs.records().map((r) => r.msg)).toContain(`skipping job ${job.id} with unknown name "legacy.job-from-another-release" on maintenance`);

    // The worker still processes real jobs afterwards.
    const real = await queue.add('image-assets.purge-expired', {});
    await pollUntil(async () => (await queue.getJob(real.id!))?.getState(), (s) => s === 'completed', { what: 'a real job' });
    expect((await queue.getJob(real.id!))!.returnvalue).toEqual({ deleted: 0 });
  });
});
