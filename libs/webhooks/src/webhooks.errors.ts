import { DomainError, ErrorDeclarations } from '@app/core';
import { WEBHOOK_LIMITS } from './webhook-limits';

/** The webhooks' own codes (docs/api.md, "Webhooks": the 21st endpoint, a duplicate endpoint). */
export enum WebhookErrorCode {
  LimitExceeded = 'limit_exceeded',
  WebhookEndpointConflict = 'webhook_endpoint_conflict',
}

/** What it answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const WEBHOOK_ERRORS: ErrorDeclarations<WebhookErrorCode> = {
  [WebhookErrorCode.LimitExceeded]: {
    status: 409,
    title: 'Limit exceeded',
    action: 'Delete an endpoint you no longer need, then create the new one.',
  },
  [WebhookErrorCode.WebhookEndpointConflict]: {
    status: 409,
    title: 'Webhook endpoint conflict',
    action: 'Change the `events` of the endpoint named in `webhookEndpointId`, or give this endpoint another URL.',
  },
};

export const WebhookErrors = {
  tooManyEndpoints: () =>
    new DomainError(
      WebhookErrorCode.LimitExceeded,
      `An organization may have at most ${WEBHOOK_LIMITS.endpointsPerOrganization} webhook endpoints; delete one to create another.`,
    ),
  /** Two endpoints of one URL with a common event would get every such event twice. */
  duplicateEndpoint: (webhookEndpointId: string) =>
    new DomainError(
      WebhookErrorCode.WebhookEndpointConflict,
      'The organization already has an endpoint with this url for some of these events; change that endpoint instead.',
      { extensions: { webhookEndpointId } },
    ),
};
