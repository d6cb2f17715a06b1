import 'reflect-metadata';
import type { Job } from 'bullmq';
import { declareJob, JobData, MAINTENANCE_QUEUE } from './job-declaration';
import { JOB_HANDLER, OnJob } from './job-handler.decorator';

const Generate = declareJob<{ operationId: string }>()('scene.generate', 'scenes');
const Purge = declareJob()('idempotency.purge-expired', MAINTENANCE_QUEUE, { everyMs: 1000 });

class Handlers {
  @OnJob(Generate)
  async generate(data: JobData<typeof Generate>, _job: Job): Promise<string> {
    return data.operationId;
  }

  // A scheduled job with an empty payload may ignore it.
  @OnJob(Purge)
  async purge(): Promise<number> {
    return 0;
  }
}

class Retyped {
  // @ts-expect-error: the payload is not the one the declaration names for scene.generate
  @OnJob(Generate)
  async generate(data: { sceneId: number }): Promise<number> {
    return data.sceneId;
  }
}

describe('OnJob', () => {
  it('marks the method with its job name, for the worker to find at boot', () => {
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Handlers.prototype.generate)).toBe('scene.generate');
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Handlers.prototype.purge)).toBe('idempotency.purge-expired');
    // The mistyped handler is a compile error (above); at run time it is marked like any other.
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Retyped.prototype.generate)).toBe('scene.generate');
  });
});
