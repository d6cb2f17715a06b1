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
  /**
   * What a caller does about it, in a sentence or two: shown on the code's page
   * (`GET /problems/{code}`, where each problem's `type` points), so a partner's engineer who
   * follows the link learns the fix, not only the name.
   */
  action: string;
  /** The answer asks for credentials (`WWW-Authenticate: Bearer`): the caller's are missing or spent. */
  challenge?: boolean;
}

/** A lib's codes and what each answers: `export const SCENE_ERRORS: ErrorDeclarations<SceneErrorCode>`. */
export type ErrorDeclarations<C extends string = string> = Readonly<Record<C, ErrorDeclaration>>;

export const CORE_ERRORS: ErrorDeclarations<ErrorCode> = {
  [ErrorCode.BadRequest]: {
    status: 400,
    title: 'Bad request',
    action:
      'Send well-formed HTTP/1.1 (one `Host` header, a `Content-Length` that matches the body) and, for uploads, a well-formed multipart body.',
  },
  [ErrorCode.InvalidJson]: {
    status: 400,
    title: 'Request body is not a JSON object',
    action:
      'Send the body as one JSON object: not an array, a scalar or nothing, at most 32 levels deep, without repeated keys or `__proto__` keys.',
  },
  [ErrorCode.InvalidId]: {
    status: 400,
    title: 'Invalid identifier',
    action:
      "Send the id exactly as the API returned it: this route's prefix, an underscore and 26 upper-case Crockford base32 characters. Do not retry as is.",
  },
  [ErrorCode.IdempotencyKeyMissing]: {
    status: 400,
    title: 'Idempotency-Key header missing',
    action: 'Send an `Idempotency-Key` header with a UUID v4 you generate for this request; reuse it only to retry this same request.',
  },
  [ErrorCode.IdempotencyKeyInvalid]: {
    status: 400,
    title: 'Idempotency-Key header invalid',
    action: 'Send the `Idempotency-Key` as a canonical lowercase UUID v4 (for example `crypto.randomUUID()`).',
  },
  [ErrorCode.Unauthenticated]: {
    status: 401,
    title: 'Authentication required',
    action:
      'Send `Authorization: Bearer <api key>` with a current `sk_test_…` or `sk_live_…` key; if the key was revoked, create a new one.',
    challenge: true,
  },
  [ErrorCode.Forbidden]: { status: 403, title: 'Action not allowed', action: 'This credential may not do this; do not retry with it.' },
  [ErrorCode.NotFound]: {
    status: 404,
    title: 'Resource not found',
    action: "Check the id or path. An unknown, deleted or expired resource and another organization's answer alike; do not retry.",
  },
  [ErrorCode.MethodNotAllowed]: { status: 405, title: 'Method not allowed', action: 'Use a method the resource supports.' },
  [ErrorCode.RequestTimeout]: {
    status: 408,
    title: 'Request timeout',
    action: 'Send the request line, headers and body without long pauses, then retry.',
  },
  [ErrorCode.IdempotencyRequestInProgress]: {
    status: 409,
    title: 'Request with this Idempotency-Key in progress',
    action: "Wait `Retry-After` seconds and retry with the same key and body: you then receive the first request's answer.",
  },
  [ErrorCode.PayloadTooLarge]: {
    status: 413,
    title: 'Payload too large',
    action: 'Send a smaller body, within the limit the route documents (JSON bodies: at most 64 KiB).',
  },
  [ErrorCode.ExpectationFailed]: {
    status: 417,
    title: 'Expectation failed',
    action: 'Send no `Expect` header, or `Expect: 100-continue`.',
  },
  [ErrorCode.HeadersTooLarge]: {
    status: 431,
    title: 'Request header fields too large',
    action: 'Send fewer or shorter headers: the request line and headers must fit in 16 KiB.',
  },
  [ErrorCode.UnsupportedMediaType]: {
    status: 415,
    title: 'Unsupported media type',
    action:
      'Send the content type the route documents: `application/json` in UTF-8 and uncompressed, or `multipart/form-data` for uploads.',
  },
  [ErrorCode.ValidationFailed]: {
    status: 422,
    title: 'Request validation failed',
    action: 'Correct every field listed in `errors` (each names its `field`, a `code` and a `message`), then send the request again.',
  },
  [ErrorCode.IdempotencyKeyReused]: {
    status: 422,
    title: 'Idempotency-Key reused with a different request',
    action: 'Generate a new Idempotency-Key for a different request; reuse a key only to retry exactly the same request.',
  },
  [ErrorCode.RateLimited]: {
    status: 429,
    title: 'Too many requests',
    action: 'Wait `Retry-After` seconds before the next request, and spread requests to stay within the `RateLimit-*` budget.',
  },
  [ErrorCode.Unavailable]: {
    status: 503,
    title: 'Service unavailable',
    action:
      'Retry after `Retry-After` seconds, backing off on repeated answers; a request with an Idempotency-Key may be retried with the same key.',
  },
  [ErrorCode.InternalError]: {
    status: 500,
    title: 'Internal server error',
    action: 'Retry later with backoff; if it persists, contact support with the `requestId`.',
  },
};

/** One broken field rule inside a `validation_failed` problem. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}
