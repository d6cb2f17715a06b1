import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { DomainError, ErrorCode } from '../errors';
import { buildProblem, mapError } from './problem';

describe(mapError.name, () => {
  it('keeps a domain error as it is', () => {
    const e = DomainError.validation([{ field: 'prompt', code: 'too_long', message: 'm' }]);
    expect(mapError(e)).toMatchObject({ code: ErrorCode.ValidationFailed, errors: e.errors, unexpected: false });
  });

  it('maps fastify body errors', () => {
    expect(mapError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).code).toBe(ErrorCode.PayloadTooLarge);
    expect(mapError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }).code).toBe(ErrorCode.UnsupportedMediaType);
  });

  it('maps Nest HTTP exceptions by status', () => {
    expect(mapError(new NotFoundException('Cannot GET /x')).code).toBe(ErrorCode.NotFound);
    expect(mapError(new PayloadTooLargeException()).code).toBe(ErrorCode.PayloadTooLarge);
  });

  it('never copies the message of an unexpected error', () => {
    const mapped = mapError(new Error('duplicate key value violates unique constraint "api_keys_key_hash_idx"'));
    expect(mapped).toMatchObject({ code: ErrorCode.InternalError, unexpected: true });
    expect(mapped.detail).not.toMatch(/constraint|api_keys/);
  });
});

describe(buildProblem.name, () => {
  it('adds WWW-Authenticate to 401 and Retry-After to 429 and 503', () => {
    expect(buildProblem(mapError(new DomainError(ErrorCode.Unauthenticated, 'x')), 'r', 'b').headers['www-authenticate']).toBe('Bearer');
    const limited = buildProblem(mapError(new DomainError(ErrorCode.RateLimited, 'x', { retryAfterSeconds: 1.2 })), 'r', 'b');
    expect(limited.headers['retry-after']).toBe('2');
    expect(buildProblem(mapError(new DomainError(ErrorCode.Unavailable, 'x')), 'r', 'b').headers['retry-after']).toBe('5');
  });

  it('omits errors when there are none', () => {
    expect(buildProblem(mapError(DomainError.notFound()), 'r', 'https://api').body).toEqual({
      type: 'https://api/problems/not_found',
      title: 'Resource not found',
      status: 404,
      code: 'not_found',
      detail: 'The requested resource does not exist.',
      requestId: 'r',
    });
  });
});
