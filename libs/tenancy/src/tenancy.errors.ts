import { DomainError, ErrorDeclarations } from '@app/core';

/** Tenancy's own code (contract section 7). */
export enum TenancyErrorCode {
  QuotaExceeded = 'quota_exceeded',
}

/** What it answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const TENANCY_ERRORS: ErrorDeclarations<TenancyErrorCode> = {
  [TenancyErrorCode.QuotaExceeded]: { status: 429, title: 'Quota exceeded' },
};

export const TenancyErrors = {
  quotaExceeded: (perDay: number | null, retryAfterSeconds: number) =>
    new DomainError(
      TenancyErrorCode.QuotaExceeded,
      `The organization has started ${perDay ?? 'all'} generations (creations and edits) today, its daily quota; more can start after midnight UTC.`,
      { retryAfterSeconds },
    ),
  invalidRange: (field: 'from' | 'to', message: string) =>
    DomainError.validation([{ field, code: 'invalid_range', message }], 'The usage period is not valid.'),
  invalidLimit: (field: string, message: string) => DomainError.validation([{ field, code: 'out_of_range', message }]),
};
