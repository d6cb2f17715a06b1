import type { MigrationConstructor } from '@app/core';
import { BoundWaitingGenerations1795360000000 } from './1795360000000-BoundWaitingGenerations';
import { IndexWaitingBacklogs1795376000000 } from './1795376000000-IndexWaitingBacklogs';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). Its first tables, `organization_limits` and `usage_days`, were
 * created by libs/operations' AddTenancy (history stays where it landed).
 */
export const TENANCY_MIGRATIONS: MigrationConstructor[] = [BoundWaitingGenerations1795360000000, IndexWaitingBacklogs1795376000000];
