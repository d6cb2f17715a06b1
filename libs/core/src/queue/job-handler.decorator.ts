import { DiscoveryService } from '@nestjs/core';
import type { Job } from 'bullmq';
import { JobDeclaration } from './job-declaration';

/** The mark the worker looks for at boot (JobWorkerHost): the job's name. */
export const JOB_HANDLER = DiscoveryService.createDecorator<string>();

/** What a handler of a job must accept: the payload its declaration names. */
export type JobHandlerMethod<P> = (data: P, job: Job) => Promise<unknown>;

/**
 * Marks a service method as the handler of one declared job (`<lib>.jobs.ts`). The worker finds
 * handlers at boot and refuses to start when a job of its registry has none, or more than one. The
 * method's payload type is checked against the declaration, so a handler cannot retype it.
 */
export function OnJob<P>(job: JobDeclaration<string, P>) {
  return <M extends JobHandlerMethod<P>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    JOB_HANDLER(job.name)(target, key, descriptor);
  };
}
