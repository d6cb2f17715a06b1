import type { MigrationConstructor } from '@app/core';
import { CreateCameraPaths1795340000000 } from './1795340000000-CreateCameraPaths';

/** The migrations of the tables this lib owns, in order; the CLI assembles every lib's list (apps/cli/src/migrations.ts). */
export const CAMERA_PATH_MIGRATIONS: MigrationConstructor[] = [CreateCameraPaths1795340000000];
