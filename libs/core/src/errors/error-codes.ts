/**
 * Core's own machine-readable error codes (docs/api.md, "Errors"): those of the transport (HTTP
 * framing, bodies, ids) and of the mechanisms core holds (authentication's answer, validation,
 * idempotency keys, rate limits, dependencies). Each lib declares its domain codes with their
 * status in its `<lib>.errors.ts`; an HTTP app assembles them into its `ErrorTable`.
 */
export enum ErrorCode {
  BadRequest = 'bad_request',
  InvalidJson = 'invalid_json',
  InvalidId = 'invalid_id',
  IdempotencyKeyMissing = 'idempotency_key_missing',
  IdempotencyKeyInvalid = 'idempotency_key_invalid',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  MethodNotAllowed = 'method_not_allowed',
  RequestTimeout = 'request_timeout',
  NotFound = 'not_found',
  IdempotencyRequestInProgress = 'idempotency_request_in_progress',
  PayloadTooLarge = 'payload_too_large',
  ExpectationFailed = 'expectation_failed',
  HeadersTooLarge = 'headers_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  ValidationFailed = 'validation_failed',
  IdempotencyKeyReused = 'idempotency_key_reused',
  RateLimited = 'rate_limited',
  Unavailable = 'unavailable',
  InternalError = 'internal_error',
}

/** What one error code answers over HTTP. Only the HTTP layer reads it; libs throw codes. */
export interface ErrorDeclaration {
  status: number;
  title: string;
  /** The answer asks for credentials (`WWW-Authenticate: Bearer`): the caller's are missing or spent. */
  challenge?: boolean;
}

/** A lib's codes and what each answers: `export const SCENE_ERRORS: ErrorDeclarations<SceneErrorCode>`. */
export type ErrorDeclarations<C extends string = string> = Readonly<Record<C, ErrorDeclaration>>;

export const CORE_ERRORS: ErrorDeclarations<ErrorCode> = {
  [ErrorCode.BadRequest]: { status: 400, title: 'Bad request' },
  [ErrorCode.InvalidJson]: { status: 400, title: 'Request body is not a JSON object' },
  [ErrorCode.InvalidId]: { status: 400, title: 'Invalid identifier' },
  [ErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency-Key header missing' },
  [ErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Idempotency-Key header invalid' },
  [ErrorCode.Unauthenticated]: { status: 401, title: 'Authentication required', challenge: true },
  [ErrorCode.Forbidden]: { status: 403, title: 'Action not allowed' },
  [ErrorCode.NotFound]: { status: 404, title: 'Resource not found' },
  [ErrorCode.MethodNotAllowed]: { status: 405, title: 'Method not allowed' },
  [ErrorCode.RequestTimeout]: { status: 408, title: 'Request timeout' },
  [ErrorCode.IdempotencyRequestInProgress]: { status: 409, title: 'Request with this Idempotency-Key in progress' },
  [ErrorCode.PayloadTooLarge]: { status: 413, title: 'Payload too large' },
  [ErrorCode.ExpectationFailed]: { status: 417, title: 'Expectation failed' },
  [ErrorCode.HeadersTooLarge]: { status: 431, title: 'Request header fields too large' },
  [ErrorCode.UnsupportedMediaType]: { status: 415, title: 'Unsupported media type' },
  [ErrorCode.ValidationFailed]: { status: 422, title: 'Request validation failed' },
  [ErrorCode.IdempotencyKeyReused]: { status: 422, title: 'Idempotency-Key reused with a different request' },
  [ErrorCode.RateLimited]: { status: 429, title: 'Too many requests' },
  [ErrorCode.Unavailable]: { status: 503, title: 'Service unavailable' },
  [ErrorCode.InternalError]: { status: 500, title: 'Internal server error' },
};

/** One broken field rule inside a `validation_failed` problem. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}
