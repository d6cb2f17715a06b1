import { DynamicModule, Module } from '@nestjs/common';
import { BlobStoreModule } from './blob-store';
import { AppConfig, ConfigModule, ConfigOverrides } from './config';
import { DatabaseModule } from './database';
import { ErrorDeclarations, ErrorTable } from './errors';
import { IdempotencyModule } from './idempotency';
import { LoggingModule, LoggingOptions } from './logging';
import { MetricsModule } from './metrics';
import { NetworkModule } from './network';
import { QueueModule } from './queue';
import { PrimitivesModule } from './primitives.module';
import { RateLimitModule } from './rate-limit';
import { RedisModule } from './redis';

export interface CoreOptions {
  /** Process name, written on every log line and into the database connection name. */
  app: 'api' | 'worker' | 'studio' | 'cli';
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
  /**
   * The error codes the app's libs declare (`<lib>.errors.ts`), besides core's: the HTTP apps list
   * those of every lib they serve, so each code answers with its lib's status.
   */
  errors?: ErrorDeclarations[];
  /** How often a failed first database connection is retried (DatabaseModule.forRoot); default 3. */
  databaseRetryAttempts?: number;
}

/** The infrastructure every process stands on. Domain modules import nothing from here but services. */
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      providers: [{ provide: ErrorTable, useValue: ErrorTable.of(...(options.errors ?? [])) }],
      exports: [ErrorTable],
      imports: [
        ConfigModule.forRoot(options.config ?? {}),
        LoggingModule.forRoot(options.app, options.logging),
        DatabaseModule.forRoot(options.app, { retryAttempts: options.databaseRetryAttempts }),
        RedisModule,
        MetricsModule,
        NetworkModule,
        // The api enqueues on requests (a deletion's follow-up) and the worker hosts the queues;
        // the studio and the CLI mostly never make a queue, and keep their memory and start.
        QueueModule.forRoot({ loadAtBoot: options.app === 'api' || options.app === 'worker' }),
        RateLimitModule,
        PrimitivesModule,
        BlobStoreModule,
        IdempotencyModule,
      ],
    };
  }
}
