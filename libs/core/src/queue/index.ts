export { unrecoverableJobError } from './bullmq';
export * from './fleet-slots';
export * from './job-handler.decorator';
export * from './job-worker.host';
export * from './job-declaration';
export * from './job-notes';
export * from './queue.module';
export * from './job-worker.module';
export * from './queue.service';
