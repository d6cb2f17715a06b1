import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/openapi';

type Schemas = components['schemas'];

export { WebhookVerificationError };

/**
 * The events Scene Studio sends (docs/api.md, "Webhooks"), typed from the `webhooks` of the api's
 * OpenAPI document; `webhook.test` comes from test sends alone. Other senders' events arrive as
 * `UnknownWebhookEvent`.
 */
export type SceneStudioWebhookEvent =
  | Schemas['OperationSucceededEvent']
  | Schemas['OperationFailedEvent']
  | Schemas['SceneDeletedEvent']
  | Schemas['EmbedSessionEndedEvent']
  | Schemas['WebhookTestEvent'];

export interface UnknownWebhookEvent {
  type: string;
  timestamp: string;
  data: unknown;
}

export type WebhookEvent = SceneStudioWebhookEvent | UnknownWebhookEvent;

export interface VerifiedWebhook<E = WebhookEvent> {
  /** `webhook-id`: the same on every retry of one event, so it is the key to deduplicate on. */
  webhookId: string;
  /** `webhook-timestamp`, already checked to be within five minutes of now. */
  sentAt: Date;
  event: E;
}

/** Header shapes of node:http (`req.headers`), express, and fetch (`Headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a Standard Webhooks delivery (https://www.standardwebhooks.com) with the
 * `standardwebhooks` library and returns its parsed body. `payload` must be the raw body exactly
 * as received: parsing and re-serializing JSON changes the bytes and breaks the signature.
 * `secret` is the endpoint's `whsec_…` secret; give several during a rotation, any one may match.
 * Throws WebhookVerificationError for a missing header, a bad or absent signature, or a timestamp
 * more than five minutes from now (replays).
 */
export function verifyWebhook<E = WebhookEvent>(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
): VerifiedWebhook<E> {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  const wanted = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one secret');
  let failure: unknown;
  for (const s of secrets) {
    try {
      const event = new Webhook(s).verify(body, wanted) as E;
      return { webhookId: wanted['webhook-id'], sentAt: new Date(Number(wanted['webhook-timestamp']) * 1000), event };
    } catch (e) {
      failure = e;
    }
  }
  throw failure;
}

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === 'function' && !Array.isArray(headers)) return (headers as Headers).get(name) ?? '';
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    // Several signatures may arrive as repeated headers; the spec separates them with spaces.
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(' ') : value;
  }
  return '';
}
