import { AppConfig, ConfigOverrides, CoreModule, HealthModule, LoggingOptions } from '@app/core';
import { DynamicModule, Module } from '@nestjs/common';

export interface StudioModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

@Module({})
export class StudioModule {
  static forRoot(options: StudioModuleOptions = {}): DynamicModule {
    return {
      module: StudioModule,
      imports: [CoreModule.forRoot({ app: 'studio', ...options }), HealthModule],
    };
  }
}
