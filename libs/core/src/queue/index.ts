export * from './fleet-slots';
export * from './job-handler.decorator';
export * from './job-worker.host';
export * from './queue.constants';
export * from './queue.module';
export * from './queue.service';
