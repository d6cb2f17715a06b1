import { AppConfig, ConfigOverrides, CoreModule, HealthServiceModule, JobWorkerModule, LoggingOptions } from '@app/core';
import { ImageAssetsModule } from '@app/image-assets';
import { ScenesWorkerModule } from '@app/scenes';
import { DynamicModule, Module } from '@nestjs/common';

export interface WorkerModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

/** The worker process: BullMQ consumers and the domain modules whose services handle jobs. */
@Module({})
export class WorkerModule {
  static forRoot(options: WorkerModuleOptions = {}): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot({ app: 'worker', ...options }),
        HealthServiceModule,
        JobWorkerModule,
        ImageAssetsModule,
        ScenesWorkerModule,
      ],
    };
  }
}
