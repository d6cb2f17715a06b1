import { AppConfig, ConfigOverrides, CoreModule, HealthServiceModule, JobWorkerModule, LoggingOptions } from '@app/core';
import { EmbedSessionsModule } from '@app/embed-sessions';
import { ImageAssetsModule } from '@app/image-assets';
import { OrganizationsModule } from '@app/organizations';
import { OperationsWorkerModule } from '@app/operations';
import { TenancyMetricsModule } from '@app/tenancy';
import { WebhooksWorkerModule } from '@app/webhooks';
import { DynamicModule, Module } from '@nestjs/common';
import { TestOrganizationsWiring } from './test-organizations.wiring';
import { WORKER_JOBS } from './worker-jobs';

export interface WorkerModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

/** The worker process: BullMQ consumers, the domain modules whose services handle jobs, and webhook delivery. */
@Module({})
export class WorkerModule {
  static forRoot(options: WorkerModuleOptions = {}): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot({ app: 'worker', ...options }),
        HealthServiceModule,
        JobWorkerModule.forRoot(WORKER_JOBS),
        ImageAssetsModule,
        OperationsWorkerModule,
        EmbedSessionsModule,
        WebhooksWorkerModule,
        TenancyMetricsModule,
        OrganizationsModule,
      ],
      providers: [TestOrganizationsWiring],
    };
  }
}
