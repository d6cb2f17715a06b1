import type { MigrationConstructor } from '@app/core';
import { AddOperationProgress1795276000000 } from './1795276000000-AddOperationProgress';
import { CreateSceneStatesView1795280000000 } from './1795280000000-CreateSceneStatesView';
import { AddOperationRevertTo1795320000000 } from './1795320000000-AddOperationRevertTo';
import { AddTenancy1795345000000 } from './1795345000000-AddTenancy';
import { HoldSlotsUntilWorkEnds1795365000000 } from './1795365000000-HoldSlotsUntilWorkEnds';
import { CreateProviderErasures1795370000000 } from './1795370000000-CreateProviderErasures';
import { ShowSceneDeletionTime1795380000000 } from './1795380000000-ShowSceneDeletionTime';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). They landed in libs/scenes before the operations lib split from
 * it, and keep their names and timestamps: the `migrations` table of every database records them
 * by name. The `operations` table itself was created by the scenes lib's CreateScenesAndOperations
 * (history stays whole). AddTenancy also creates tenancy's `organization_limits` and `usage_days`
 * (five of its eight statements are this lib's: `operations`' admission and `admission_turns`).
 */
export const OPERATION_MIGRATIONS: MigrationConstructor[] = [
  AddOperationProgress1795276000000,
  CreateSceneStatesView1795280000000,
  AddOperationRevertTo1795320000000,
  AddTenancy1795345000000,
  HoldSlotsUntilWorkEnds1795365000000,
  CreateProviderErasures1795370000000,
  ShowSceneDeletionTime1795380000000,
];
