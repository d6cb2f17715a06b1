import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainError, ErrorCode, FieldError, isInfrastructureError } from '../errors';
import { JSON_BODY_LIMIT, jsonTooLargeDetail } from './json-body';

const TABLE: Record<ErrorCode, [number, string]> = {
  [ErrorCode.BadRequest]: [400, 'Bad request'],
  [ErrorCode.InvalidJson]: [400, 'Request body is not a JSON object'],
  [ErrorCode.InvalidId]: [400, 'Invalid identifier'],
  [ErrorCode.IdempotencyKeyMissing]: [400, 'Idempotency-Key header missing'],
  [ErrorCode.IdempotencyKeyInvalid]: [400, 'Idempotency-Key header invalid'],
  [ErrorCode.Unauthenticated]: [401, 'Authentication required'],
  [ErrorCode.SessionEnded]: [401, 'Session ended'],
  [ErrorCode.Forbidden]: [403, 'Action not allowed'],
  [ErrorCode.NotFound]: [404, 'Resource not found'],
  [ErrorCode.MethodNotAllowed]: [405, 'Method not allowed'],
  [ErrorCode.RequestTimeout]: [408, 'Request timeout'],
  [ErrorCode.IdempotencyRequestInProgress]: [409, 'Request with this Idempotency-Key in progress'],
  [ErrorCode.ExternalRefConflict]: [409, 'externalRef already in use'],
  [ErrorCode.SceneNotReady]: [409, 'Scene not ready'],
  [ErrorCode.EditInProgress]: [409, 'An edit is already in progress'],
  [ErrorCode.LimitExceeded]: [409, 'Limit exceeded'],
  [ErrorCode.PayloadTooLarge]: [413, 'Payload too large'],
  [ErrorCode.ExpectationFailed]: [417, 'Expectation failed'],
  [ErrorCode.HeadersTooLarge]: [431, 'Request header fields too large'],
  [ErrorCode.UnsupportedMediaType]: [415, 'Unsupported media type'],
  [ErrorCode.ValidationFailed]: [422, 'Request validation failed'],
  [ErrorCode.IdempotencyKeyReused]: [422, 'Idempotency-Key reused with a different request'],
  [ErrorCode.UnsupportedImageFormat]: [422, 'Unsupported image format'],
  [ErrorCode.ImageCorrupt]: [422, 'Image data is corrupt'],
  [ErrorCode.ImageDimensionsExceeded]: [422, 'Image dimensions exceeded'],
  [ErrorCode.SourceAssetNotFound]: [422, 'Source asset not found'],
  [ErrorCode.SourceImageTooSmall]: [422, 'Source image too small'],
  [ErrorCode.SourceImageAspectRatio]: [422, 'Source image aspect ratio not 16:9'],
  [ErrorCode.OriginNotAllowed]: [422, 'Origin not allowed'],
  [ErrorCode.RateLimited]: [429, 'Too many requests'],
  [ErrorCode.QuotaExceeded]: [429, 'Quota exceeded'],
  [ErrorCode.Unavailable]: [503, 'Service unavailable'],
  [ErrorCode.InternalError]: [500, 'Internal server error'],
};

export function statusOf(code: ErrorCode): number {
  return TABLE[code][0];
}

export function titleOf(code: ErrorCode): string {
  return TABLE[code][1];
}

/** RFC 9457 body, as every error response carries it. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  requestId: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface Problem {
  status: number;
  headers: Record<string, string>;
  body: ProblemBody;
}

/**
 * Errors raised by Express's body reader (body-parser, by `type`) and router before a route's own
 * code runs. Mapped by their stable type, never by their message.
 */
const FRAMEWORK_TYPES: Record<string, [ErrorCode, string]> = {
  'entity.too.large': [ErrorCode.PayloadTooLarge, jsonTooLargeDetail(JSON_BODY_LIMIT)],
  'encoding.unsupported': [ErrorCode.UnsupportedMediaType, 'Compressed request bodies (Content-Encoding) are not accepted.'],
  'charset.unsupported': [ErrorCode.UnsupportedMediaType, 'The request body must be UTF-8.'],
  'request.size.invalid': [ErrorCode.BadRequest, 'The Content-Length header does not match the body.'],
  'request.aborted': [ErrorCode.BadRequest, 'The request body ended early.'],
  'entity.parse.failed': [ErrorCode.InvalidJson, 'The request body must be a JSON object.'],
};

export interface MappedError {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  retryAfterSeconds?: number;
  extensions?: Record<string, unknown>;
  /** Unexpected: log it with its stack. */
  unexpected: boolean;
  /** A dependency is down: worth a warning, not a stack. */
  dependencyDown?: boolean;
}

/** Turns anything thrown into a safe, stable error description. Never copies foreign messages. */
export function mapError(error: unknown): MappedError {
  if (error instanceof DomainError) {
    return {
      code: error.code,
      detail: error.message,
      errors: error.errors,
      retryAfterSeconds: error.retryAfterSeconds,
      extensions: error.extensions,
      unexpected: error.code === ErrorCode.InternalError,
    };
  }
  if (isInfrastructureError(error)) {
    return {
      code: ErrorCode.Unavailable,
      detail: 'A dependency of the service is unavailable. Retry later.',
      retryAfterSeconds: 5,
      unexpected: false,
      dependencyDown: true,
    };
  }
  const type = (error as { type?: unknown })?.type;
  if (typeof type === 'string' && FRAMEWORK_TYPES[type]) {
    const [code, detail] = FRAMEWORK_TYPES[type];
    return { code, detail, unexpected: false };
  }
  // Express's router cannot decode a path parameter (a broken percent-encoding).
  if (error instanceof URIError) return { code: ErrorCode.BadRequest, detail: 'The request URL is malformed.', unexpected: false };
  const status = error instanceof HttpException ? error.getStatus() : (statusOfForeignError(error) ?? 500);
  switch (status as HttpStatus) {
    case HttpStatus.NOT_FOUND:
      return { code: ErrorCode.NotFound, detail: DomainError.notFound().message, unexpected: false };
    case HttpStatus.METHOD_NOT_ALLOWED:
      return { code: ErrorCode.MethodNotAllowed, detail: 'This method is not allowed on this resource.', unexpected: false };
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return { code: ErrorCode.PayloadTooLarge, detail: 'The request body is too large.', unexpected: false };
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
      return { code: ErrorCode.UnsupportedMediaType, detail: 'The request content type is not accepted here.', unexpected: false };
    case HttpStatus.BAD_REQUEST:
      return { code: ErrorCode.BadRequest, detail: 'The request is malformed.', unexpected: false };
    default:
      return { code: ErrorCode.InternalError, detail: 'The request could not be handled. It has been logged.', unexpected: true };
  }
}

/** The HTTP status an error from a framework or library carries itself (`status` or `statusCode`). */
function statusOfForeignError(error: unknown): number | undefined {
  const e = error as { status?: unknown; statusCode?: unknown } | null;
  const status = e?.statusCode ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

export function buildProblem(mapped: MappedError, requestId: string, problemBaseUrl: string): Problem {
  const status = statusOf(mapped.code);
  const body: ProblemBody = {
    ...(mapped.extensions ?? {}),
    type: `${problemBaseUrl}/problems/${mapped.code}`,
    title: titleOf(mapped.code),
    status,
    code: mapped.code,
    detail: mapped.detail,
    requestId,
  };
  if (mapped.errors && mapped.errors.length > 0) body.errors = mapped.errors;
  const headers: Record<string, string> = { 'content-type': 'application/problem+json; charset=utf-8' };
  if (mapped.code === ErrorCode.Unauthenticated || mapped.code === ErrorCode.SessionEnded) headers['www-authenticate'] = 'Bearer';
  if (mapped.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(mapped.retryAfterSeconds)));
  else if (mapped.code === ErrorCode.Unavailable) headers['retry-after'] = '5';
  return { status, headers, body };
}
