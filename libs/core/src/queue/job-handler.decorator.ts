import { DiscoveryService } from '@nestjs/core';
import type { Job } from 'bullmq';
import { JobData, JobName } from './queue.constants';

/** The mark the worker looks for at boot (JobWorkerHost). */
export const JOB_HANDLER = DiscoveryService.createDecorator<JobName>();

/** What a handler of job `N` must accept: the payload the queue registry declares for `N`. */
export type JobHandlerMethod<N extends JobName> = (data: JobData<N>, job: Job) => Promise<unknown>;

/**
 * Marks a service method as the handler of one job name. The worker finds handlers at boot and
 * refuses to start when a job name has none, or more than one. The method's payload type is
 * checked against the registry (`queue.constants.ts`), so a handler cannot retype it.
 */
export function OnJob<N extends JobName>(name: N) {
  return <M extends JobHandlerMethod<N>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    JOB_HANDLER(name)(target, key, descriptor);
  };
}
