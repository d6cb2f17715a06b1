import 'reflect-metadata';
import type { Job } from 'bullmq';
import { JOB_HANDLER, OnJob } from './job-handler.decorator';
import { JobData, JobName } from './queue.constants';

class Handlers {
  @OnJob(JobName.SceneGenerate)
  async generate(data: JobData<JobName.SceneGenerate>, _job: Job): Promise<string> {
    return data.operationId;
  }

  // A scheduled job with an empty payload may ignore it.
  @OnJob(JobName.IdempotencyPurgeExpired)
  async purge(): Promise<number> {
    return 0;
  }
}

class Retyped {
  // @ts-expect-error: the payload is not the one the registry declares for scene.generate
  @OnJob(JobName.SceneGenerate)
  async generate(data: { sceneId: number }): Promise<number> {
    return data.sceneId;
  }
}

describe('OnJob', () => {
  it('marks the method with its job name, for the worker to find at boot', () => {
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Handlers.prototype.generate)).toBe(JobName.SceneGenerate);
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Handlers.prototype.purge)).toBe(JobName.IdempotencyPurgeExpired);
    // The mistyped handler is a compile error (above); at run time it is marked like any other.
    expect(Reflect.getMetadata(JOB_HANDLER.KEY, Retyped.prototype.generate)).toBe(JobName.SceneGenerate);
  });
});
