import type { MigrationConstructor } from '@app/core';
import { CreateWebhooks1795300000000 } from './1795300000000-CreateWebhooks';
import { WebhookMessagesByAge1795305000000 } from './1795305000000-WebhookMessagesByAge';
import { ParkDisabledEndpointsDeliveries1795381000000 } from './1795381000000-ParkDisabledEndpointsDeliveries';

/**
 * The migrations of the tables this lib owns, in order; the CLI assembles every lib's list
 * (apps/cli/src/migrations.ts). CreateWebhooks also adds the `embed_sessions` columns that record
 * which endings were reported: migrations are history and stay whole, with the lib that owns most
 * of each.
 */
export const WEBHOOK_MIGRATIONS: MigrationConstructor[] = [
  CreateWebhooks1795300000000,
  WebhookMessagesByAge1795305000000,
  ParkDisabledEndpointsDeliveries1795381000000,
];
