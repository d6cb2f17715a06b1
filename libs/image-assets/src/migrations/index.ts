import type { MigrationConstructor } from '@app/core';
import { CreateImageAssets1795267204438 } from './1795267204438-CreateImageAssets';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). CreateImageAssets also creates core's `blobs` table: migrations are
 * history and stay whole, with the lib that owns most of each (here `image_assets` and its indexes).
 */
export const IMAGE_ASSET_MIGRATIONS: MigrationConstructor[] = [CreateImageAssets1795267204438];
