import type { Job } from 'bullmq';

/** What a handler can say about its job for the job's log line. */
export interface JobNote {
  /** The organization the job works for, once the handler has loaded what the payload names. */
  organizationId?: string;
}

const notes = new WeakMap<Job, JobNote>();

/**
 * Adds to the line the worker writes when the job ends (JobWorkerHost): payloads carry ids only,
 * so the organization a job works for is known once its handler has loaded the row it names.
 * Held beside the job object, dropped with it.
 */
export function noteJob(job: Job, note: JobNote): void {
  notes.set(job, { ...notes.get(job), ...note });
}

export function jobNote(job: Job): JobNote | undefined {
  return notes.get(job);
}
