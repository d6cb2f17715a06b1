import { DomainError, ErrorDeclarations } from '@app/core';

/** Tenancy's own code (docs/api.md, "Errors"). */
export enum TenancyErrorCode {
  QuotaExceeded = 'quota_exceeded',
  MaxWaitingGenerationsExceeded = 'max_waiting_generations_exceeded',
}

/**
 * What a refusal over `maxWaitingGenerations` suggests waiting: the organization's next
 * generation is admitted within about a round of the fleet, so a few seconds usually free a place;
 * a partner that retries sooner only spends its rate limit.
 */
export const WAITING_RETRY_AFTER_SECONDS = 10;

/** What it answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const TENANCY_ERRORS: ErrorDeclarations<TenancyErrorCode> = {
  [TenancyErrorCode.QuotaExceeded]: {
    status: 429,
    title: 'Quota exceeded',
    action:
      'Wait until `Retry-After` (midnight UTC), or ask for a higher `generationsPerDay`; nothing was created and the Idempotency-Key is still unused.',
  },
  [TenancyErrorCode.MaxWaitingGenerationsExceeded]: {
    status: 429,
    title: 'Too many generations waiting',
    action:
      'Retry after `Retry-After` seconds, once some waiting generations have started; nothing was created and the Idempotency-Key is still unused.',
  },
};

export const TenancyErrors = {
  quotaExceeded: (perDay: number | null, retryAfterSeconds: number) =>
    new DomainError(
      TenancyErrorCode.QuotaExceeded,
      `The organization has started ${perDay ?? 'all'} generations (creations and edits) today, its daily quota; more can start after midnight UTC.`,
      { retryAfterSeconds },
    ),
  maxWaitingGenerationsExceeded: (max: number) =>
    new DomainError(
      TenancyErrorCode.MaxWaitingGenerationsExceeded,
      `The organization already has ${max} generations (creations and edits) waiting to start, its maxWaitingGenerations; more can be accepted as they start.`,
      { retryAfterSeconds: WAITING_RETRY_AFTER_SECONDS },
    ),
  invalidRange: (field: 'from' | 'to', message: string) =>
    DomainError.validation([{ field, code: 'invalid_range', message }], 'The usage period is not valid.'),
  invalidLimit: (field: string, message: string) => DomainError.validation([{ field, code: 'out_of_range', message }]),
};
