import { ImageAssetsModule } from '@app/image-assets';
import { ScenesModule } from '@app/scenes';
import { TenancyModule } from '@app/tenancy';
import { WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { AdmissionSignal } from './admission-signal';
import { OperationLocks } from './operation-locks';
import { OperationOutcomes } from './operation-outcomes';
import { OperationRetention } from './operation-retention';
import { OperationsDataModule } from './operations-data.module';
import { OperationsService } from './operations.service';
import { SceneChanges } from './scene-changes';
import { SceneJobScheduler } from './scene-job-scheduler';
import { SceneOperationsService } from './scene-operations.service';

/**
 * Operations for every process: a scene's creation and edits, polling, cancel, the end of a
 * deleted scene's operations (a scene deletion hook: every process that deletes scenes imports
 * this module).
 */
@Module({
  imports: [OperationsDataModule, ScenesModule, ImageAssetsModule, WebhooksModule, TenancyModule],
  providers: [
    SceneOperationsService,
    OperationsService,
    OperationOutcomes,
    OperationLocks,
    SceneJobScheduler,
    AdmissionSignal,
    SceneChanges,
    // An erasure job; like the other maintenance handlers it is found and run by the worker only.
    OperationRetention,
  ],
  exports: [SceneOperationsService, OperationsService, OperationOutcomes, OperationLocks, SceneJobScheduler, AdmissionSignal, SceneChanges],
})
export class OperationsModule {}
