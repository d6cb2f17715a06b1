import { CameraPathsModule } from '@app/camera-paths';
import { AppConfig, ConfigOverrides, CoreModule, HealthModule, LoggingOptions } from '@app/core';
import { EmbedSessionsModule } from '@app/embed-sessions';
import { ImageAssetsModule } from '@app/image-assets';
import { OperationsModule } from '@app/operations';
import { ScenesModule } from '@app/scenes';
import { DynamicModule, Module } from '@nestjs/common';
import { CameraPathsController } from './api/camera-paths.controller';
import { StudioApiController } from './api/studio-api.controller';
import { StudioEventsHub } from './events/studio-events.hub';
import { StreamSlots } from './events/stream-slots';
import { StudioStreamMetrics } from './events/studio-stream-metrics';
import { StudioBudgets } from './limits/studio-budgets';
import { StudioSlots } from './limits/studio-slots';
import { CameraPathBodyReader } from './api/camera-path-body';
import { EmbedPageController } from './page/embed-page.controller';
import { WEB_BUNDLE_DIR, WebBundle } from './page/web-bundle';
import { STUDIO_ERRORS } from './studio-errors';

export interface StudioModuleOptions {
  config?: AppConfig | ConfigOverrides;
  logging?: LoggingOptions;
  /** The built page to serve; by default the production build beside the server (WebBundle). */
  webBundleDir?: string;
}

/** The embed origin: the studio page and its session-scoped API. */
@Module({})
export class StudioModule {
  static forRoot(options: StudioModuleOptions = {}): DynamicModule {
    return {
      module: StudioModule,
      imports: [
        CoreModule.forRoot({ app: 'studio', errors: STUDIO_ERRORS, ...options }),
        HealthModule,
        EmbedSessionsModule,
        ScenesModule,
        OperationsModule,
        ImageAssetsModule,
        CameraPathsModule,
      ],
      controllers: [EmbedPageController, StudioApiController, CameraPathsController],
      providers: [
        { provide: WEB_BUNDLE_DIR, useValue: options.webBundleDir ?? null },
        WebBundle,
        StudioEventsHub,
        StreamSlots,
        StudioStreamMetrics,
        StudioBudgets,
        StudioSlots,
        CameraPathBodyReader,
      ],
    };
  }
}
