import type { WebhookEventType } from '@app/webhooks/webhook-events';
import type { WebhookEndpoint } from '@app/webhooks/webhooks.repository';

/**
 * An enabled webhook endpoint as WebhookEndpointsService.create builds one (every property but
 * `deletedAt`), for tests that write it through the repository; its secret is a placeholder.
 */
export function webhookEndpoint(organizationId: string, id: string, url: string, events: WebhookEventType[], at: Date): WebhookEndpoint {
  return {
    id,
    organizationId,
    url,
    allowLoopback: false,
    events,
    enabled: true,
    disabledReason: null,
    secretSealed: 'v1.sealed-secret',
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: at,
    updatedAt: at,
  };
}
