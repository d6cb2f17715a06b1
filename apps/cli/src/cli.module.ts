import { AppConfig, CoreModule } from '@app/core';
import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';

/** The lib modules a command works with: only those are loaded and built, nothing else. */
export type CliImports = NonNullable<ModuleMetadata['imports']>;

@Module({})
export class CliModule {
  /**
   * Core and the lib modules one command works with (its commands file names them), nothing more:
   * `org list` builds neither the scenes nor the webhooks, and loads none of their code.
   */
  static forRoot(config: AppConfig, imports: CliImports): DynamicModule {
    return {
      module: CliModule,
      imports: [
        // Logs go to stderr so that stdout carries only the command's output.
        CoreModule.forRoot({ app: 'cli', config, logging: { destination: 2, quietLevel: 'warn' }, databaseRetryAttempts: 0 }),
        ...imports,
      ],
    };
  }
}
