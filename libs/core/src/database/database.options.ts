import { DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config';
import { AfterCommitSubscriber } from './after-commit';

export function databaseOptions(config: AppConfig, applicationName: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.database.url,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // What runs once a transaction commits (afterCommit): broadcasts of committed changes.
    subscribers: [AfterCommitSubscriber],
    extra: {
      max: config.database.poolSize,
      application_name: `scene-studio-${applicationName}`,
      connectionTimeoutMillis: 5000,
      // A runaway query must not hold a pooled connection forever. Omitted when 0 (PgBouncer).
      ...(config.database.statementTimeoutMs > 0 ? { statement_timeout: config.database.statementTimeoutMs } : {}),
    },
  };
}
