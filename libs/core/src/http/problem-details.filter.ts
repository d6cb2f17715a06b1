import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, mapError } from './problem';

const logger = new Logger('HttpError');

/** Writes an RFC 9457 problem for any error; the single place where errors become HTTP. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: unknown, problemBaseUrl: string): void {
  const mapped = mapError(error);
  if (mapped.unexpected) {
    logger.error({ err: error, requestId: request.id }, 'unhandled error while serving a request');
  }
  if (reply.sent || reply.raw.headersSent) {
    // A streamed response (e.g. server-sent events) already started: nothing sane can be written.
    reply.raw.destroy();
    return;
  }
  const problem = buildProblem(mapped, String(request.id), problemBaseUrl);
  // Routing errors are answered before the onRequest hook that normally sets it.
  if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', String(request.id));
  reply.code(problem.status).headers(problem.headers).send(problem.body);
}

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(private readonly problemBaseUrl: string) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception, this.problemBaseUrl);
  }
}
