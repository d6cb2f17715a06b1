import { GenerationModule } from '@app/generation';
import { ImageAssetsModule } from '@app/image-assets';
import { TenancyModule } from '@app/tenancy';
import { WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { AdmissionSignal } from './admission-signal';
import { GenerationAdmission } from './generation-admission';
import { OperationOutcomes } from './operation-outcomes';
import { OperationRetention } from './operation-retention';
import { OperationsReconciler } from './operations-reconciler';
import { OperationsService } from './operations.service';
import { SceneChanges } from './scene-changes';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneGenerationProcessor } from './scene-generation.processor';
import { SceneJobs } from './scene-jobs';
import { ScenePurge } from './scene-purge';
import { ProviderErasures } from './provider-erasures';
import { SceneReverts } from './scene-reverts';
import { ScenesDataModule } from './scenes-data.module';
import { ScenesService } from './scenes.service';
import { ProviderStarts } from './provider-starts';
import { GenerationBacklogMetrics } from './generation-backlog-metrics';
import { GenerationBacklogRepository } from './generation-backlog.repository';
import { GenerationMetrics } from './generation-metrics';
import { TestOrganizations } from './test-organizations';

/** Scenes and their operations for every process: creation, lookup, polling, deletion, edits. */
@Module({
  imports: [ScenesDataModule, ImageAssetsModule, WebhooksModule, TenancyModule],
  providers: [
    ScenesService,
    OperationsService,
    OperationOutcomes,
    SceneJobs,
    SceneDeletionHooks,
    AdmissionSignal,
    SceneChanges,
    // An erasure job; like the other maintenance handlers it is found and run by the worker only.
    OperationRetention,
  ],
  exports: [ScenesService, OperationsService, OperationOutcomes, SceneJobs, SceneDeletionHooks, AdmissionSignal, SceneChanges],
})
export class ScenesModule {}

/** What only the worker runs: admission, the generation jobs and the reconciler. */
@Module({
  imports: [ScenesModule, ScenesDataModule, ImageAssetsModule, GenerationModule, TenancyModule],
  providers: [
    SceneGenerationProcessor,
    SceneReverts,
    OperationsReconciler,
    ProviderStarts,
    GenerationAdmission,
    // The generation metrics on /metrics (docs/operations.md, "Monitoring"): the worker's alone.
    GenerationMetrics,
    GenerationBacklogRepository,
    GenerationBacklogMetrics,
    // The purge of deleted scenes reaches the provider's copies too: it needs the generator.
    ScenePurge,
    ProviderErasures,
    // Filled in by the worker app, which may import organizations (test mode's directives).
    TestOrganizations,
  ],
  exports: [OperationsReconciler, GenerationAdmission, TestOrganizations],
})
export class ScenesWorkerModule {}
