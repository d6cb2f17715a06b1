import type { MigrationConstructor } from '@app/core';
import { CreateScenesAndOperations1795267900000 } from './1795267900000-CreateScenesAndOperations';
import { LongRunningGenerations1795290000000 } from './1795290000000-LongRunningGenerations';
import { AddSplatPreviewArtifact1795330000000 } from './1795330000000-AddSplatPreviewArtifact';
import { EraseDeletedData1795350000000 } from './1795350000000-EraseDeletedData';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). Migrations are history and stay whole, with the lib that owns most
 * of each: CreateScenesAndOperations also creates core's `idempotency_keys` and the operations
 * lib's `operations`; LongRunningGenerations also alters `operations` and redefines the operations
 * lib's `scene_states` view; EraseDeletedData also indexes `operations`, `embed_sessions` and
 * `webhook_deliveries`. The operations lib's own are in libs/operations/src/migrations.
 */
export const SCENE_MIGRATIONS: MigrationConstructor[] = [
  CreateScenesAndOperations1795267900000,
  LongRunningGenerations1795290000000,
  AddSplatPreviewArtifact1795330000000,
  EraseDeletedData1795350000000,
];
