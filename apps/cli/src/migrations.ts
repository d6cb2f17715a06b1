// Relative imports: jest's global setup (test/setup/global-setup.ts) migrates the test template
// with this list and loads it outside jest's module mapper, where `@app/*` does not resolve. Each
// path is a lib's migrations folder, which imports nothing but TypeORM.
import { assembleMigrations, CORE_MIGRATIONS } from '../../../libs/core/src/database';
import { CAMERA_PATH_MIGRATIONS } from '../../../libs/camera-paths/src/migrations';
import { EMBED_SESSION_MIGRATIONS } from '../../../libs/embed-sessions/src/migrations';
import { IMAGE_ASSET_MIGRATIONS } from '../../../libs/image-assets/src/migrations';
import { OPERATION_MIGRATIONS } from '../../../libs/operations/src/migrations';
import { ORGANIZATION_MIGRATIONS } from '../../../libs/organizations/src/migrations';
import { SCENE_MIGRATIONS } from '../../../libs/scenes/src/migrations';
import { TENANCY_MIGRATIONS } from '../../../libs/tenancy/src/migrations';
import { WEBHOOK_MIGRATIONS } from '../../../libs/webhooks/src/migrations';

/**
 * Every migration of every lib, in timestamp order: what `cli migrate` applies. A lib with a new
 * table adds its migration to its own `src/migrations/index.ts`; a lib with its first migration
 * adds its list here.
 */
export const MIGRATIONS = assembleMigrations(
  CORE_MIGRATIONS,
  ORGANIZATION_MIGRATIONS,
  IMAGE_ASSET_MIGRATIONS,
  SCENE_MIGRATIONS,
  OPERATION_MIGRATIONS,
  TENANCY_MIGRATIONS,
  EMBED_SESSION_MIGRATIONS,
  WEBHOOK_MIGRATIONS,
  CAMERA_PATH_MIGRATIONS,
);
