import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { CORE_ERROR_TABLE, DomainError, ErrorCode, ErrorTable } from '../errors';
import { buildProblem, mapError as mapWith } from './problem';

const mapError = (error: unknown) => mapWith(error, CORE_ERROR_TABLE);
const settings = (baseUrl: string) => ({ baseUrl, errors: CORE_ERROR_TABLE });

describe(mapWith.name, () => {
  it('keeps a domain error as it is', () => {
    const e = DomainError.validation([{ field: 'prompt', code: 'too_long', message: 'm' }]);
    expect(mapError(e)).toMatchObject({ code: ErrorCode.ValidationFailed, errors: e.errors, unexpected: false });
  });

  it("maps the errors of Express's body reader by their type, and its router's decoding errors", () => {
    expect(mapError({ type: 'entity.too.large', status: 413, message: 'request entity too large' })).toMatchObject({
      code: ErrorCode.PayloadTooLarge,
      detail: 'The request body exceeds the 64 KiB limit for JSON.',
    });
    expect(mapError({ type: 'request.size.invalid', statusCode: 400 }).code).toBe(ErrorCode.BadRequest);
    expect(mapError({ type: 'encoding.unsupported', statusCode: 415 }).code).toBe(ErrorCode.UnsupportedMediaType);
    expect(mapError(new URIError("Failed to decode param '%E0%A4%A'"))).toMatchObject({ code: ErrorCode.BadRequest, unexpected: false });
  });

  it('maps a foreign error by the status it carries, never by its message', () => {
    const mapped = mapError(Object.assign(new Error('secret detail'), { status: 415 }));
    expect(mapped.code).toBe(ErrorCode.UnsupportedMediaType);
    expect(mapped.detail).not.toContain('secret');
  });

  it('maps Nest HTTP exceptions by status', () => {
    expect(mapError(new NotFoundException('Cannot GET /x')).code).toBe(ErrorCode.NotFound);
    expect(mapError(new PayloadTooLargeException()).code).toBe(ErrorCode.PayloadTooLarge);
  });

  it.each([
    ['PostgreSQL refusing connections', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['the pool waiting in vain', new Error('timeout exceeded when trying to connect')],
    [
      'PostgreSQL shutting down, wrapped by TypeORM',
      { name: 'QueryFailedError', message: 'terminating connection due to administrator command', driverError: { code: '57P01' } },
    ],
    ['too many connections', { driverError: { code: '53300' } }],
    ['a connection exception (class 08)', { driverError: { code: '08006' } }],
    ['Redis gone', new Error('Connection is closed.')],
    ['Redis frozen', new Error('Command timed out')],
    [
      'a transaction whose connection died while it waited (TypeORM)',
      Object.assign(new Error('Database connection provided by a query runner was already released'), {
        name: 'QueryRunnerProviderAlreadyReleasedError',
      }),
    ],
    [
      'Redis retries spent',
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
    ],
  ])('maps %s to 503 unavailable with Retry-After, not 500', (_, error) => {
    const mapped = mapError(error);
    expect(mapped).toMatchObject({ code: ErrorCode.Unavailable, unexpected: false, dependencyDown: true, retryAfterSeconds: 5 });
    expect(buildProblem(mapped, 'r', settings('b')).headers['retry-after']).toBe('5');
    expect(mapped.detail).not.toMatch(/5432|ECONN|terminat|administrator/);
  });

  it('keeps a failing statement a 500 (a bug, not an outage)', () => {
    const mapped = mapError({ name: 'QueryFailedError', message: 'column "x" does not exist', driverError: { code: '42703' } });
    expect(mapped).toMatchObject({ code: ErrorCode.InternalError, unexpected: true });
  });

  it('never copies the message of an unexpected error', () => {
    const mapped = mapError(new Error('duplicate key value violates unique constraint "api_keys_key_hash_idx"'));
    expect(mapped).toMatchObject({ code: ErrorCode.InternalError, unexpected: true });
    expect(mapped.detail).not.toMatch(/constraint|api_keys/);
  });
});

describe(buildProblem.name, () => {
  it('adds WWW-Authenticate to 401 and Retry-After to 429 and 503', () => {
    expect(buildProblem(mapError(new DomainError(ErrorCode.Unauthenticated, 'x')), 'r', settings('b')).headers['www-authenticate']).toBe(
      'Bearer',
    );
    const limited = buildProblem(mapError(new DomainError(ErrorCode.RateLimited, 'x', { retryAfterSeconds: 1.2 })), 'r', settings('b'));
    expect(limited.headers['retry-after']).toBe('2');
    expect(buildProblem(mapError(new DomainError(ErrorCode.Unavailable, 'x')), 'r', settings('b')).headers['retry-after']).toBe('5');
  });

  it('omits errors when there are none', () => {
    expect(buildProblem(mapError(DomainError.notFound()), 'r', settings('https://api')).body).toEqual({
      type: 'https://api/problems/not_found',
      title: 'Resource not found',
      status: 404,
      code: 'not_found',
      detail: 'The requested resource does not exist.',
      requestId: 'r',
    });
  });
});

describe(ErrorTable.name, () => {
  const SCENES = { scene_not_ready: { status: 409, title: 'Scene not ready', action: 'Wait.' } };
  const SESSIONS = { session_ended: { status: 401, title: 'Session ended', action: 'Start another.', challenge: true } };

  it("answers a lib's code with the status and title its lib declares", () => {
    const errors = ErrorTable.of(SCENES, SESSIONS);
    const body = buildProblem(mapWith(new DomainError('scene_not_ready', 'd'), errors), 'r', { baseUrl: 'b', errors }).body;
    expect(body).toMatchObject({ status: 409, title: 'Scene not ready', code: 'scene_not_ready', type: 'b/problems/scene_not_ready' });
    const ended = buildProblem(mapWith(new DomainError('session_ended', 'd'), errors), 'r', { baseUrl: 'b', errors });
    expect(ended).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer' } });
  });

  it('answers a code no lib of the app declared as an unexpected internal error', () => {
    const mapped = mapWith(new DomainError('scene_not_ready', 'secret detail'), CORE_ERROR_TABLE);
    expect(mapped).toMatchObject({ code: ErrorCode.InternalError, unexpected: true });
    expect(mapped.detail).not.toContain('secret');
  });

  it("refuses a code declared twice, core's own included", () => {
    expect(() => ErrorTable.of(SCENES, SCENES)).toThrow('"scene_not_ready" is declared twice');
    expect(() => ErrorTable.of({ not_found: { status: 410, title: 'Gone', action: 'Stop.' } })).toThrow('declared twice');
  });
});
