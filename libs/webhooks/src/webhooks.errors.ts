import { DomainError, ErrorCode } from '@app/core';
import { WEBHOOK_LIMITS } from './webhook-limits';

export const WebhookErrors = {
  tooManyEndpoints: () =>
    new DomainError(
      ErrorCode.LimitExceeded,
      `An organization may have at most ${WEBHOOK_LIMITS.endpointsPerOrganization} webhook endpoints; delete one to create another.`,
    ),
};
