import { HttpException, HttpStatus, INestApplicationContext } from '@nestjs/common';
import { AppConfig } from '../config';
import { DomainError, ErrorCode, ErrorTable, FieldError, isInfrastructureError } from '../errors';
import { JSON_BODY_LIMIT, jsonTooLargeDetail } from './json-body';

/** RFC 9457 body, as every error response carries it. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
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
  code: string;
  detail: string;
  errors?: FieldError[];
  retryAfterSeconds?: number;
  extensions?: Record<string, unknown>;
  /** Unexpected: log it with its stack. */
  unexpected: boolean;
  /** A dependency is down: worth a warning, not a stack. */
  dependencyDown?: boolean;
}

/**
 * Turns anything thrown into a safe, stable error description. Never copies foreign messages. A
 * domain error whose code `errors` lacks (a lib whose declarations the app did not assemble) is
 * an internal error, logged as unexpected, rather than an answer with a made-up status.
 */
export function mapError(error: unknown, errors: ErrorTable): MappedError {
  if (error instanceof DomainError && !errors.has(error.code)) {
    return { code: ErrorCode.InternalError, detail: 'The request could not be handled. It has been logged.', unexpected: true };
  }
  if (error instanceof DomainError) {
    return {
      code: error.code,
      detail: error.message,
      errors: error.errors,
      retryAfterSeconds: error.retryAfterSeconds,
      extensions: error.extensions,
      unexpected: error.code === (ErrorCode.InternalError as string),
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

/** How a process answers errors: where its problem types live and the codes its libs declared. */
export interface ProblemSettings {
  baseUrl: string;
  errors: ErrorTable;
}

/** A running application's settings: its public URL and the error table its app assembled (CoreModule). */
export function problemSettings(app: INestApplicationContext): ProblemSettings {
  return { baseUrl: app.get(AppConfig).publicApiUrl, errors: app.get(ErrorTable) };
}

export function buildProblem(mapped: MappedError, requestId: string, problems: ProblemSettings): Problem {
  // mapError only returns codes of the table; internal_error is core's own.
  const declared = problems.errors.get(mapped.code) ?? problems.errors.get(ErrorCode.InternalError)!;
  const status = declared.status;
  const body: ProblemBody = {
    ...(mapped.extensions ?? {}),
    type: `${problems.baseUrl}/problems/${mapped.code}`,
    title: declared.title,
    status,
    code: mapped.code,
    detail: mapped.detail,
    requestId,
  };
  if (mapped.errors && mapped.errors.length > 0) body.errors = mapped.errors;
  const headers: Record<string, string> = { 'content-type': 'application/problem+json; charset=utf-8' };
  if (declared.challenge) headers['www-authenticate'] = 'Bearer';
  if (mapped.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(mapped.retryAfterSeconds)));
  else if (mapped.code === (ErrorCode.Unavailable as string)) headers['retry-after'] = '5';
  return { status, headers, body };
}
