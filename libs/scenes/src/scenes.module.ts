import { GenerationModule } from '@app/generation';
import { ImageAssetsModule } from '@app/image-assets';
import { TenancyModule } from '@app/tenancy';
import { WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdmissionTurnEntity } from './admission-turn.entity';
import { AdmissionRepository } from './admission.repository';
import { AdmissionSignal } from './admission-signal';
import { GenerationAdmission } from './generation-admission';
import { OperationOutcomes } from './operation-outcomes';
import { OperationRetention } from './operation-retention';
import { OperationEntity } from './operation.entity';
import { OperationsReconciler } from './operations-reconciler';
import { OperationsRepository } from './operations.repository';
import { OperationsService } from './operations.service';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneGenerationProcessor } from './scene-generation.processor';
import { SceneJobs } from './scene-jobs';
import { ScenePurge } from './scene-purge';
import { SceneReverts } from './scene-reverts';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';
import { ScenesService } from './scenes.service';
import { ProviderStarts } from './provider-starts';

/** Scenes and their operations for every process: creation, lookup, polling, deletion, edits. */
@Module({
  imports: [
    TypeOrmModule.forFeature([SceneEntity, SceneVersionEntity, SceneArtifactEntity, OperationEntity, AdmissionTurnEntity]),
    ImageAssetsModule,
    WebhooksModule,
    TenancyModule,
  ],
  providers: [
    ScenesRepository,
    ScenesService,
    OperationsRepository,
    OperationsService,
    OperationOutcomes,
    SceneJobs,
    SceneDeletionHooks,
    AdmissionSignal,
    AdmissionRepository,
    // Erasure jobs; like the other maintenance handlers they are found and run by the worker only.
    ScenePurge,
    OperationRetention,
  ],
  exports: [
    ScenesService,
    OperationsService,
    OperationOutcomes,
    SceneJobs,
    SceneDeletionHooks,
    ScenesRepository,
    OperationsRepository,
    AdmissionSignal,
  ],
})
export class ScenesModule {}

/** What only the worker runs: admission, the generation jobs and the reconciler. */
@Module({
  imports: [ScenesModule, ImageAssetsModule, GenerationModule, TenancyModule],
  providers: [SceneGenerationProcessor, SceneReverts, OperationsReconciler, AdmissionRepository, ProviderStarts, GenerationAdmission],
  exports: [OperationsReconciler, GenerationAdmission],
})
export class ScenesWorkerModule {}
