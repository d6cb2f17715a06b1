import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { buildProblem, mapError, ProblemSettings } from './problem';
import { discardUnreadBody } from './unread-body';

const logger = new Logger('HttpError');

/** Writes an RFC 9457 problem for any error; the single place where errors become HTTP. */
export function sendProblem(request: Request, response: Response, error: unknown, problems: ProblemSettings): void {
  const mapped = mapError(error, problems.errors);
  if (mapped.unexpected) {
    logger.error({ err: error, requestId: request.requestId }, 'unhandled error while serving a request');
  } else if (mapped.dependencyDown) {
    logger.warn({ requestId: request.requestId }, `dependency unavailable while serving a request: ${(error as Error)?.message}`);
  }
  if (response.headersSent) {
    // A streamed response (e.g. server-sent events) already started: nothing sane can be written.
    response.destroy();
    return;
  }
  const problem = buildProblem(mapped, request.requestId, problems);
  response.status(problem.status).set(problem.headers).send(JSON.stringify(problem.body));
  discardUnreadBody(request);
}

/** For the Nest applications: every error a route, guard, pipe or middleware throws. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(private readonly problems: ProblemSettings) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(http.getRequest<Request>(), http.getResponse<Response>(), exception, this.problems);
  }
}

/** The same, as Express's last error handler, for plain Express apps (the worker's ops server). */
export function problemErrorHandler(problems: ProblemSettings): ErrorRequestHandler {
  return (error, request, response, _next) => sendProblem(request, response, error, problems);
}
