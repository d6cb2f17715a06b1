import { GenerationModule } from '@app/generation';
import { ImageAssetsModule } from '@app/image-assets';
import { ScenesModule } from '@app/scenes';
import { TenancyModule } from '@app/tenancy';
import { Module } from '@nestjs/common';
import { GenerationAdmission } from './generation-admission';
import { GenerationBacklogMetrics } from './generation-backlog-metrics';
import { GenerationBacklogRepository } from './generation-backlog.repository';
import { GenerationMetrics } from './generation-metrics';
import { OperationsReconciler } from './operations-reconciler';
import { OperationsDataModule } from './operations-data.module';
import { OperationsModule } from './operations.module';
import { ProviderErasures } from './provider-erasures';
import { ProviderStarts } from './provider-starts';
import { SceneGenerationProcessor } from './scene-generation.processor';
import { ScenePurge } from './scene-purge';
import { SceneReverts } from './scene-reverts';
import { TestOrganizations } from './test-organizations';

/** What only the worker runs: admission, the generation jobs, the purge and the reconciler. */
@Module({
  imports: [OperationsModule, OperationsDataModule, ScenesModule, ImageAssetsModule, GenerationModule, TenancyModule],
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
export class OperationsWorkerModule {}
