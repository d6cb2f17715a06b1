import { ErrorCode, FieldError } from './error-codes';

export interface DomainErrorOptions {
  errors?: FieldError[];
  /** Seconds a client should wait before retrying (rate limits, unavailable dependencies). */
  retryAfterSeconds?: number;
  /** Extra problem members (RFC 9457 extensions); must be safe to show. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type libraries throw for expected failures. `message` becomes the problem's
 * `detail`, so it must be safe to show to a partner: never interpolate SQL, stack traces,
 * provider output or secrets into it.
 */
export class DomainError extends Error {
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;
  readonly extensions?: Record<string, unknown>;

  constructor(
    /** Core's `ErrorCode` or a code a lib declares in its `<lib>.errors.ts`. */
    readonly code: string,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extensions = options.extensions;
  }

  static validation(errors: FieldError[], message = 'The request has invalid fields.'): DomainError {
    return new DomainError(ErrorCode.ValidationFailed, message, { errors });
  }

  static notFound(): DomainError {
    // One message for every kind of miss, so an unknown id and another organization's id look alike.
    return new DomainError(ErrorCode.NotFound, 'The requested resource does not exist.');
  }

  static unavailable(retryAfterSeconds = 5): DomainError {
    return new DomainError(ErrorCode.Unavailable, 'A dependency of the service is unavailable. Retry later.', {
      retryAfterSeconds,
    });
  }
}

export function isDomainError(e: unknown, code?: string): e is DomainError {
  return e instanceof DomainError && (code === undefined || e.code === code);
}
