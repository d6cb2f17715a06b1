import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobRegistry } from './job-declaration';
import { JOB_REGISTRY, JobWorkerHost } from './job-worker.host';

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
