import { GenerationModule } from '@app/generation';
import { ImageAssetsModule } from '@app/image-assets';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OperationEntity } from './operation.entity';
import { OperationsReconciler } from './operations-reconciler';
import { OperationsRepository } from './operations.repository';
import { OperationsService } from './operations.service';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneGenerationProcessor } from './scene-generation.processor';
import { SceneJobs } from './scene-jobs';
import { SceneEntity, SceneVersionEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';
import { ScenesService } from './scenes.service';

/** Scenes and their operations for every process: creation, lookup, polling, deletion, edits. */
@Module({
  imports: [TypeOrmModule.forFeature([SceneEntity, SceneVersionEntity, OperationEntity]), ImageAssetsModule],
  providers: [ScenesRepository, ScenesService, OperationsRepository, OperationsService, SceneJobs, SceneDeletionHooks],
  exports: [ScenesService, OperationsService, SceneJobs, SceneDeletionHooks, ScenesRepository, OperationsRepository],
})
export class ScenesModule {}

/** What only the worker runs: the generation jobs and the reconciler. */
@Module({
  imports: [ScenesModule, ImageAssetsModule, GenerationModule],
  providers: [SceneGenerationProcessor, OperationsReconciler],
  exports: [OperationsReconciler],
})
export class ScenesWorkerModule {}
