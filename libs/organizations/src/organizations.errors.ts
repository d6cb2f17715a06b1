import { DomainError, ErrorCode, ErrorDeclarations } from '@app/core';

/** Organizations' own code (docs/api.md, "Errors"). */
export enum OrganizationErrorCode {
  TestModeOnly = 'test_mode_only',
}

/** What it answers over HTTP; the api assembles it (API_ERRORS). */
export const ORGANIZATION_ERRORS: ErrorDeclarations<OrganizationErrorCode> = {
  [OrganizationErrorCode.TestModeOnly]: {
    status: 403,
    title: 'Test organizations only',
    action: "Call this route with a test organization's key (`sk_test_…`); a live organization cannot use it.",
  },
};

export const OrganizationErrors = {
  unauthenticated: () => new DomainError(ErrorCode.Unauthenticated, 'A valid API key is required in the Authorization header (Bearer).'),
  organizationNotFound: (id: string) => new DomainError(ErrorCode.NotFound, `Organization ${id} does not exist.`),
  keyNotFound: (id: string) => new DomainError(ErrorCode.NotFound, `API key ${id} does not exist.`),
  invalidOrigin: () =>
    DomainError.validation(
      [{ field: 'origin', code: 'invalid_format', message: 'origin must be an exact HTTPS origin such as https://app.example.com' }],
      'The origin is not an exact HTTPS origin.',
    ),
  testModeOnly: () =>
    new DomainError(
      OrganizationErrorCode.TestModeOnly,
      'This is a test-mode route: only test organizations (sk_test_ keys) may call it. Nothing was changed.',
    ),
  invalidName: () => DomainError.validation([{ field: 'name', code: 'invalid_length', message: 'name must be 1 to 200 characters' }]),
};
