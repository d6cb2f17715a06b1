import { WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneStore } from './scene-store';
import { ScenesDataModule } from './scenes-data.module';
import { ScenesService } from './scenes.service';

/**
 * The scene aggregate for every process: lookup, deletion and a version's files (ScenesService);
 * the writes of the operations lib above it (SceneStore); the deletion hooks of the libs above.
 */
@Module({
  imports: [ScenesDataModule, WebhooksModule],
  providers: [ScenesService, SceneStore, SceneDeletionHooks],
  exports: [ScenesService, SceneStore, SceneDeletionHooks],
})
export class ScenesModule {}
