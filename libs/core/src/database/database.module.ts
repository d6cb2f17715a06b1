import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { databaseOptions } from './database.options';

@Module({})
export class DatabaseModule {
  /**
   * `retryAttempts`: how often a first connection that failed is tried again, a second apart. A
   * service waits out a database that is briefly away at boot; a one-shot command (the CLI) says
   * at once that it cannot reach it.
   */
  static forRoot(applicationName: string, { retryAttempts = 3 }: { retryAttempts?: number } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            ...databaseOptions(config, applicationName),
            autoLoadEntities: true,
            // Boot must not hang or crash-loop while Postgres is briefly away: /readyz reports it.
            retryAttempts,
            retryDelay: 1000,
          }),
        }),
      ],
      providers: [DatabasePoolMetrics],
      exports: [TypeOrmModule],
    };
  }
}
