import { IdempotencyRecordsKeepResults1795280100000 } from './1795280100000-IdempotencyRecordsKeepResults';
import { CreatePendingBlobs1795371000000 } from './1795371000000-CreatePendingBlobs';
import { assembleMigrations, MigrationConstructor } from '../migration-list';

/**
 * Core's own migrations (the tables it owns: `idempotency_keys`, `blobs`, `pending_blobs`). Each lib lists its
 * own in `libs/<lib>/src/migrations`; the CLI assembles them all (`assembleMigrations`). Listed
 * explicitly rather than globbed so that the same list works from compiled JavaScript, from the
 * test runner's TypeScript and from a bundled image. (`blobs` and `idempotency_keys` were created
 * by the image-assets and scenes migrations of the time, which stay whole in those libs.)
 */
export const CORE_MIGRATIONS: MigrationConstructor[] = [IdempotencyRecordsKeepResults1795280100000, CreatePendingBlobs1795371000000];

export { assembleMigrations };
export type { MigrationConstructor };
