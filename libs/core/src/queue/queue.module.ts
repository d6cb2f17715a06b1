import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { FleetSlots } from './fleet-slots';
import { JobWorkerHost } from './job-worker.host';
import { QueueService } from './queue.service';

/** Producers, for every process that enqueues. */
@Global()
@Module({ providers: [QueueService, FleetSlots], exports: [QueueService, FleetSlots] })
export class QueueModule {}

/** Consumers, for the worker process only. */
@Module({ imports: [DiscoveryModule], providers: [JobWorkerHost] })
export class JobWorkerModule {}
