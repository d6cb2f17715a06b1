import { DynamicModule, Global, Module } from '@nestjs/common';
import { FleetSlots } from './fleet-slots';
import { QUEUE_LOADING, QueueService } from './queue.service';

/** Producers, for every process that enqueues. */
@Global()
@Module({})
export class QueueModule {
  /**
   * `loadAtBoot`: BullMQ is required while the process starts (a server, whose first request must
   * not pay for it), not when it first makes a queue (the CLI, which mostly never does).
   */
  static forRoot({ loadAtBoot }: { loadAtBoot: boolean }): DynamicModule {
    return {
      module: QueueModule,
      providers: [QueueService, FleetSlots, { provide: QUEUE_LOADING, useValue: { loadAtBoot } }],
      exports: [QueueService, FleetSlots],
    };
  }
}
