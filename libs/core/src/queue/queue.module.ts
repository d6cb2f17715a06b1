import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { FleetSlots } from './fleet-slots';
import { JobRegistry } from './job-declaration';
import { JOB_REGISTRY, JobWorkerHost } from './job-worker.host';
import { QueueService } from './queue.service';

/** Producers, for every process that enqueues. */
@Global()
@Module({ providers: [QueueService, FleetSlots], exports: [QueueService, FleetSlots] })
export class QueueModule {}

/** Consumers, for the worker process only: the jobs of `registry`, which the worker assembles from its libs. */
@Module({})
export class JobWorkerModule {
  static forRoot(registry: JobRegistry): DynamicModule {
    return {
      module: JobWorkerModule,
      imports: [DiscoveryModule],
      providers: [JobWorkerHost, { provide: JOB_REGISTRY, useValue: registry }],
    };
  }
}
