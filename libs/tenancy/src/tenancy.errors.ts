import { DomainError, ErrorCode } from '@app/core';

export const TenancyErrors = {
  quotaExceeded: (perDay: number | null, retryAfterSeconds: number) =>
    new DomainError(
      ErrorCode.QuotaExceeded,
      `The organization has started ${perDay ?? 'all'} generations (creations and edits) today, its daily quota; more can start after midnight UTC.`,
      { retryAfterSeconds },
    ),
  invalidRange: (field: 'from' | 'to', message: string) =>
    DomainError.validation([{ field, code: 'invalid_range', message }], 'The usage period is not valid.'),
  invalidLimit: (field: string, message: string) => DomainError.validation([{ field, code: 'out_of_range', message }]),
};
