import { CameraPathsModule } from '@app/camera-paths';
import { AppConfig, ConfigOverrides, CoreModule, HealthModule, LoggingOptions } from '@app/core';
import { EmbedSessionsModule } from '@app/embed-sessions';
import { ImageAssetsModule } from '@app/image-assets';
import { OperationsModule } from '@app/operations';
import { OrganizationsModule } from '@app/organizations';
import { ScenesModule } from '@app/scenes';
import { TenancyModule } from '@app/tenancy';
import { WebhooksModule } from '@app/webhooks';
import { DynamicModule, Module } from '@nestjs/common';
import { API_ERRORS } from './api-errors';
import { EmbedSessionsController } from './controllers/embed-sessions.controller';
import { ImageAssetsController } from './controllers/image-assets.controller';
import { OperationsController } from './controllers/operations.controller';
import { ScenesController } from './controllers/scenes.controller';
import { UsageController } from './controllers/usage.controller';
import { WebhookEndpointsController } from './controllers/webhook-endpoints.controller';
import { UploadGate } from './uploads/upload-gate';
import { UploadReader } from './uploads/upload-reader';

export interface ApiModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
}

@Module({})
export class ApiModule {
  static forRoot(options: ApiModuleOptions = {}): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        CoreModule.forRoot({ app: 'api', errors: API_ERRORS, ...options }),
        HealthModule,
        OrganizationsModule,
        ImageAssetsModule,
        ScenesModule,
        // Scenes are deleted here: its scene-deletion hook ends their running operations.
        OperationsModule,
        EmbedSessionsModule,
        WebhooksModule,
        TenancyModule,
        // Scenes are deleted here: its scene-deletion hook removes their saved camera paths.
        CameraPathsModule,
      ],
      controllers: [
        ImageAssetsController,
        ScenesController,
        OperationsController,
        EmbedSessionsController,
        WebhookEndpointsController,
        UsageController,
      ],
      providers: [UploadGate, UploadReader],
    };
  }
}
