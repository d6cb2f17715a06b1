import type { MigrationConstructor } from '@app/core';
import { CreateOrganizations1795266471184 } from './1795266471184-CreateOrganizations';

/** The migrations of the tables this lib owns, in order; the CLI assembles every lib's list (apps/cli/src/migrations.ts). */
export const ORGANIZATION_MIGRATIONS: MigrationConstructor[] = [CreateOrganizations1795266471184];
