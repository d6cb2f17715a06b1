import { AppConfig, ConfigOverrides, CoreModule, HealthModule, LoggingOptions } from '@app/core';
import { OrganizationsModule } from '@app/organizations';
import { DynamicModule, Module } from '@nestjs/common';

export interface ApiModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

@Module({})
export class ApiModule {
  static forRoot(options: ApiModuleOptions = {}): DynamicModule {
    return {
      module: ApiModule,
      imports: [CoreModule.forRoot({ app: 'api', ...options }), HealthModule, OrganizationsModule],
      controllers: [],
    };
  }
}
