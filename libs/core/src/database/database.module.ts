import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { databaseOptions } from './database.options';

@Module({})
export class DatabaseModule {
  static forRoot(applicationName: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            ...databaseOptions(config, applicationName),
            autoLoadEntities: true,
            // Boot must not hang or crash-loop while Postgres is briefly away: /readyz reports it.
            retryAttempts: 3,
            retryDelay: 1000,
          }),
        }),
      ],
      providers: [DatabasePoolMetrics],
      exports: [TypeOrmModule],
    };
  }
}
