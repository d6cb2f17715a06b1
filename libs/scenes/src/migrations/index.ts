import type { MigrationConstructor } from '@app/core';
import { CreateScenesAndOperations1795267900000 } from './1795267900000-CreateScenesAndOperations';
import { AddOperationProgress1795276000000 } from './1795276000000-AddOperationProgress';
import { CreateSceneStatesView1795280000000 } from './1795280000000-CreateSceneStatesView';
import { LongRunningGenerations1795290000000 } from './1795290000000-LongRunningGenerations';
import { AddOperationRevertTo1795320000000 } from './1795320000000-AddOperationRevertTo';
import { AddSplatPreviewArtifact1795330000000 } from './1795330000000-AddSplatPreviewArtifact';
import { AddTenancy1795345000000 } from './1795345000000-AddTenancy';
import { EraseDeletedData1795350000000 } from './1795350000000-EraseDeletedData';
import { HoldSlotsUntilWorkEnds1795365000000 } from './1795365000000-HoldSlotsUntilWorkEnds';
import { CreateProviderErasures1795370000000 } from './1795370000000-CreateProviderErasures';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). Migrations are history and stay whole: three here also touch other
 * libs' tables, and sit with the lib that owns most of each — CreateScenesAndOperations also
 * creates core's `idempotency_keys`; AddTenancy also creates tenancy's `organization_limits` and
 * `usage_days` (five of its eight statements are this lib's); EraseDeletedData also indexes
 * `embed_sessions` and `webhook_deliveries`.
 */
export const SCENE_MIGRATIONS: MigrationConstructor[] = [
  CreateScenesAndOperations1795267900000,
  AddOperationProgress1795276000000,
  CreateSceneStatesView1795280000000,
  LongRunningGenerations1795290000000,
  AddOperationRevertTo1795320000000,
  AddSplatPreviewArtifact1795330000000,
  AddTenancy1795345000000,
  EraseDeletedData1795350000000,
  HoldSlotsUntilWorkEnds1795365000000,
  CreateProviderErasures1795370000000,
];
