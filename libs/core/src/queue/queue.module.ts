import { Global, Module } from '@nestjs/common';
import { FleetSlots } from './fleet-slots';
import { QueueService } from './queue.service';

/** Producers, for every process that enqueues. */
@Global()
@Module({ providers: [QueueService, FleetSlots], exports: [QueueService, FleetSlots] })
export class QueueModule {}
