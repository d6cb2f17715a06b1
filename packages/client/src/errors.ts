import type { Problem, ProblemCode } from './types';

/**
 * A non-2xx answer of the api, carrying its RFC 9457 problem: branch on `code` (stable), show
 * `detail`, quote `requestId` to support. `retryAfterSeconds` is the answer's `Retry-After`.
 */
export class SceneStudioError extends Error {
  override readonly name = 'SceneStudioError';

  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${status} ${problem.code}: ${problem.detail}`);
  }

  get code(): ProblemCode {
    return this.problem.code;
  }

  get requestId(): string {
    return this.problem.requestId;
  }

  /** Field problems of a `validation_failed` answer. */
  get errors(): NonNullable<Problem['errors']> {
    return this.problem.errors ?? [];
  }
}

/** `waitForOperation` ran out of time; the operation may still finish (poll it again later). */
export class OperationTimeoutError extends Error {
  override readonly name = 'OperationTimeoutError';

  constructor(
    readonly operationId: string,
    readonly timeoutMs: number,
  ) {
    super(`operation ${operationId} still processing after ${timeoutMs} ms`);
  }
}

/**
 * A body that is not problem+json (a proxy's HTML page, say) still becomes a SceneStudioError,
 * with a synthetic problem, so callers branch on one error type.
 */
export function toProblem(status: number, body: unknown, requestId: string | null): Problem {
  if (body && typeof body === 'object' && typeof (body as Problem).code === 'string') return body as Problem;
  return {
    type: 'about:blank',
    title: 'Unexpected response',
    status,
    code: status >= 500 ? 'internal_error' : 'bad_request',
    detail: `The server answered ${status} without a problem document.`,
    requestId: requestId ?? '',
  };
}
