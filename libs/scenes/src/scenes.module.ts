import { GenerationModule } from '@app/generation';
import { ImageAssetsModule } from '@app/image-assets';
import { OperationsModule } from '@app/operations';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OperationsReconciler } from './operations-reconciler';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneGenerationProcessor } from './scene-generation.processor';
import { SceneJobs } from './scene-jobs';
import { SceneEntity, SceneVersionEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';
import { ScenesService } from './scenes.service';

/** Scenes for every process: creation, lookup, deletion, edits. */
@Module({
  imports: [TypeOrmModule.forFeature([SceneEntity, SceneVersionEntity]), OperationsModule, ImageAssetsModule],
  providers: [ScenesRepository, ScenesService, SceneJobs, SceneDeletionHooks],
  exports: [ScenesService, SceneJobs, SceneDeletionHooks, ScenesRepository, OperationsModule],
})
export class ScenesModule {}

/** What only the worker runs: the generation jobs and the reconciler. */
@Module({
  imports: [ScenesModule, OperationsModule, ImageAssetsModule, GenerationModule],
  providers: [SceneGenerationProcessor, OperationsReconciler],
  exports: [OperationsReconciler],
})
export class ScenesWorkerModule {}
