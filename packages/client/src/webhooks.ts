import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi';

type Schemas = components['schemas'];

/** A delivery that is not proven to come from Scene Studio, or not recently: reject it (answer 400). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** How far `webhook-timestamp` may be from now, either way (Standard Webhooks' tolerance). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

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
 * Verifies a Standard Webhooks delivery (https://www.standardwebhooks.com) and returns its parsed
 * body. The algorithm is the spec's, as its reference library (`standardwebhooks`) runs it: an
 * HMAC-SHA256, keyed with the base64 after `whsec_`, of `<webhook-id>.<webhook-timestamp>.<body>`,
 * compared in constant time with each `v1,<base64>` of `webhook-signature`. Written here rather
 * than imported so that the package needs nothing but Node. `payload` must be the raw body
 * exactly as received: parsing and re-serializing JSON changes the bytes and breaks the signature.
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
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures } = wanted;
  // The reference library's checks and messages, in its order.
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');
  const sentAtSeconds = parseInt(timestamp, 10);
  if (Number.isNaN(sentAtSeconds)) throw new WebhookVerificationError('Invalid Signature Headers');
  const now = Math.floor(Date.now() / 1000);
  if (now - sentAtSeconds > WEBHOOK_TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too old');
  if (sentAtSeconds > now + WEBHOOK_TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too new');
  const offered = signatures
    .split(' ')
    .map((versioned) => versioned.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, signature]) => Buffer.from(signature ?? '', 'utf8'));
  for (const s of secrets) {
    const expected = Buffer.from(sign(s, `${id}.${sentAtSeconds}.${body}`), 'utf8');
    if (offered.some((o) => o.length === expected.length && timingSafeEqual(o, expected))) {
      return { webhookId: id, sentAt: new Date(Number(timestamp) * 1000), event: JSON.parse(body) as E };
    }
  }
  throw new WebhookVerificationError('No matching signature found');
}

function sign(secret: string, content: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new TypeError("Secret can't be empty.");
  return createHmac('sha256', key).update(content, 'utf8').digest('base64');
}

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === 'function' && !Array.isArray(headers)) return (headers as Headers).get(name) ?? '';
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    // Several signatures may arrive as repeated headers; the spec separates them with spaces.
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(' ') : value;
  }
  return '';
}
