import { IdPrefix, idPattern } from '@app/core';
import { EmbedSessionIdPrefix } from '@app/embed-sessions';
import { SceneIdPrefix } from '@app/scenes';
import { WEBHOOK_EVENT_TYPES, WebhookEventType, WebhookIdPrefix } from '@app/webhooks';
import { exampleId } from './api-id-param.decorator';

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const id = (prefix: IdPrefix) => ({ type: 'string', pattern: idPattern(prefix), examples: [exampleId(prefix)] });

/** The tag of the document's `webhooks`: what we POST, not what a partner calls. */
export const WEBHOOK_EVENTS_TAG = 'Webhook events';

/** What each event's `data` is and when it is sent (docs/api.md, "Webhooks"). */
interface EventDescription {
  schema: string;
  summary: string;
  description: string;
  data: Schema;
}

const OPERATION_DATA = {
  ...ref('OperationResponse'),
  description:
    'The operation exactly as `GET /v1/operations/{operationId}` shows it when the event happened, with its `kind` and its scene\u2019s `externalRef`.',
};

/**
 * Every event type the service sends. A Record over WEBHOOK_EVENT_TYPES, so an event type added
 * to the webhooks lib without its payload here does not compile; `webhook.test` (test sends,
 * docs/api.md "Webhook test sends") is no subscribable type and is listed apart.
 */
const EVENTS: Record<WebhookEventType, EventDescription> = {
  'operation.succeeded': {
    schema: 'OperationSucceededEvent',
    summary: 'A creation or an edit succeeded',
    description: 'Sent once the operation has succeeded: `data.status` is `succeeded`, with `sceneId` and `version`.',
    data: OPERATION_DATA,
  },
  'operation.failed': {
    schema: 'OperationFailedEvent',
    summary: 'A creation or an edit failed or was cancelled',
    description:
      'Sent once the operation has failed (`data.error.code` `cancelled` when it was cancelled). Operations that end because their ' +
      'scene is deleted are not announced one by one: `scene.deleted` says it.',
    data: OPERATION_DATA,
  },
  'scene.deleted': {
    schema: 'SceneDeletedEvent',
    summary: 'A scene was deleted',
    description: 'Sent once per scene deleted by `DELETE /v1/scenes/{sceneId}`, in any state. Match it on `sceneId`.',
    data: {
      type: 'object',
      required: ['sceneId', 'externalRef'],
      properties: {
        sceneId: id(SceneIdPrefix.Scene),
        externalRef: {
          type: ['string', 'null'],
          description: 'The one the scene was created with; a failed creation\u2019s may since name another, active scene.',
        },
      },
    },
  },
  'embed_session.ended': {
    schema: 'EmbedSessionEndedEvent',
    summary: 'An active embed session ended',
    description:
      'Revoked (`DELETE /v1/embed-sessions/{embedSessionId}`, or its origin\u2019s approval removed), expired (noticed within about ' +
      '30 s) or ended with its scene (`scene_deleted`).',
    data: {
      type: 'object',
      required: ['embedSessionId', 'sceneId', 'reason'],
      properties: {
        embedSessionId: id(EmbedSessionIdPrefix.EmbedSession),
        sceneId: id(SceneIdPrefix.Scene),
        reason: { type: 'string', enum: ['revoked', 'expired', 'scene_deleted'] },
      },
    },
  },
};

const TEST_EVENT: EventDescription = {
  schema: 'WebhookTestEvent',
  summary: 'A test send',
  description: 'Sent by `POST /v1/webhook-endpoints/{webhookEndpointId}:test` alone, whatever the endpoint\u2019s `events`; never retried.',
  data: {
    type: 'object',
    required: ['webhookEndpointId'],
    properties: {
      webhookEndpointId: id(WebhookIdPrefix.Endpoint),
    },
  },
};

const ALL_EVENTS: Array<[string, EventDescription]> = [
  ...WEBHOOK_EVENT_TYPES.map((t) => [t, EVENTS[t]] as [string, EventDescription]),
  ['webhook.test', TEST_EVENT],
];

/** The Standard Webhooks headers every delivery carries. */
const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The message id: the same on every retry and replay of one event. Deduplicate on it.',
    schema: id(WebhookIdPrefix.Message),
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was sent, in seconds since the Unix epoch. Refuse deliveries far from your clock.',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$', examples: ['1764422400'] },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint\u2019s secret (the bytes after ' +
      '`whsec_`, base64-decoded); two, space-separated, while a rotated secret overlaps. Any one matching is enough.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

/** The payload schemas, for `components.schemas`: `{type, timestamp, data}` per event type. */
export function webhookEventSchemas(): Record<string, Schema> {
  return Object.fromEntries(
    ALL_EVENTS.map(([type, event]) => [
      event.schema,
      {
        type: 'object',
        description: `What each \`${type}\` delivery carries. ${event.description}`,
        required: ['type', 'timestamp', 'data'],
        properties: {
          type: { type: 'string', const: type },
          timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (not when this attempt was sent).' },
          data: event.data,
        },
      },
    ]),
  );
}

/**
 * The document's `webhooks` (OpenAPI 3.1): one POST per event type, as the service sends it to a
 * partner's endpoint. Only a `2xx` answer counts as delivered; anything else is retried with backoff.
 */
export function webhookOperations(): Record<string, Schema> {
  return Object.fromEntries(
    ALL_EVENTS.map(([type, event]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}`,
          summary: event.summary,
          description: `${event.description} Signed per Standard Webhooks; delivered at least once, in no guaranteed order.`,
          tags: [WEBHOOK_EVENTS_TAG],
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: ref(event.schema) } } },
          responses: {
            '2XX': { description: 'Delivered. Any other status, a redirect (never followed) or a timeout is retried with backoff.' },
          },
        },
      },
    ]),
  );
}
