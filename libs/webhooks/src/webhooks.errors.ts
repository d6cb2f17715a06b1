import { DomainError, ErrorDeclarations } from '@app/core';
import { WEBHOOK_LIMITS } from './webhook-limits';

/** The webhooks' own code (docs/api.md, "Webhooks": the 21st endpoint). */
export enum WebhookErrorCode {
  LimitExceeded = 'limit_exceeded',
}

/** What it answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const WEBHOOK_ERRORS: ErrorDeclarations<WebhookErrorCode> = {
  [WebhookErrorCode.LimitExceeded]: { status: 409, title: 'Limit exceeded' },
};

export const WebhookErrors = {
  tooManyEndpoints: () =>
    new DomainError(
      WebhookErrorCode.LimitExceeded,
      `An organization may have at most ${WEBHOOK_LIMITS.endpointsPerOrganization} webhook endpoints; delete one to create another.`,
    ),
};
