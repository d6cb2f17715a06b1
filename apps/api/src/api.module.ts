import { AppConfig, ConfigOverrides, CoreModule, HealthModule, LoggingOptions } from '@app/core';
import { ImageAssetsModule } from '@app/image-assets';
import { OrganizationsModule } from '@app/organizations';
import { DynamicModule, Module } from '@nestjs/common';
import { ImageAssetsController } from './controllers/image-assets.controller';
import { UploadGate } from './uploads/upload-gate';

export interface ApiModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

@Module({})
export class ApiModule {
  static forRoot(options: ApiModuleOptions = {}): DynamicModule {
    return {
      module: ApiModule,
      imports: [CoreModule.forRoot({ app: 'api', ...options }), HealthModule, OrganizationsModule, ImageAssetsModule],
      controllers: [ImageAssetsController],
      providers: [UploadGate],
    };
  }
}
