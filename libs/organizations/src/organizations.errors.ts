import { DomainError, ErrorCode } from '@app/core';

export const OrganizationErrors = {
  unauthenticated: () => new DomainError(ErrorCode.Unauthenticated, 'A valid API key is required in the Authorization header (Bearer).'),
  organizationNotFound: (id: string) => new DomainError(ErrorCode.NotFound, `Organization ${id} does not exist.`),
  keyNotFound: (id: string) => new DomainError(ErrorCode.NotFound, `API key ${id} does not exist.`),
  invalidOrigin: () =>
    DomainError.validation(
      [{ field: 'origin', code: 'invalid_format', message: 'origin must be an exact HTTPS origin such as https://app.example.com' }],
      'The origin is not an exact HTTPS origin.',
    ),
  invalidName: () => DomainError.validation([{ field: 'name', code: 'invalid_length', message: 'name must be 1 to 200 characters' }]),
};
