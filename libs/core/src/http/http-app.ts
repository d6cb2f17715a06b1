import { NestFastifyApplication, FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppConfig } from '../config';
import { DomainError, ErrorCode } from '../errors';
import { RootLogger, ROOT_LOGGER } from '../logging';
import { MetricsService } from '../metrics';
import { ProblemDetailsFilter, sendProblem } from './problem-details.filter';
import { requestIdFor } from './request-id';
import { DomainValidationPipe } from './validation';

/** JSON bodies are small by contract; uploads are streamed by their own route with their own cap. */
export const JSON_BODY_LIMIT = 64 * 1024;

/** Probes are scraped every few seconds; logging each would drown the request log. */
const UNLOGGED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the caller is authenticated; written into the request log line. */
    organizationId?: string;
  }
}

/**
 * `forceCloseConnections`: the api drains in-flight requests on shutdown ('idle'); the studio
 * holds long-lived event streams that never drain, so it closes every connection (its pages
 * reconnect on their own).
 */
export function createFastifyAdapter(options: { forceCloseConnections?: boolean | 'idle' } = {}): FastifyAdapter {
  return new FastifyAdapter({
    forceCloseConnections: options.forceCloseConnections ?? 'idle',
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: JSON_BODY_LIMIT,
    logger: false,
    return503OnClosing: true,
    // Errors fastify raises while routing (a malformed percent-encoding, an over-long path
    // parameter) never reach Nest's filter: answer them with the same problem details.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      sendProblem(request, reply, error, (request.server as { problemBaseUrl?: string }).problemBaseUrl ?? '');
    },
  });
}

export interface HttpAppOptions {
  /** Default `Cache-Control` for responses that set none. */
  defaultCacheControl?: string;
}

/**
 * Everything the HTTP processes (api and studio) share: body parsing, request ids, problem
 * details, validation, security headers, metrics and the request log line. Call before `init()`.
 */
export function configureHttpApp(app: NestFastifyApplication, options: HttpAppOptions = {}): FastifyInstance {
  const config = app.get(AppConfig);
  const metrics = app.get(MetricsService);
  const log = app.get<RootLogger>(ROOT_LOGGER);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const cacheControl = options.defaultCacheControl ?? 'no-store';

  fastify.decorate('problemBaseUrl', config.publicApiUrl);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return done(new DomainError(ErrorCode.InvalidJson, 'The request body must be a JSON object.'), undefined);
    }
    // Nothing we accept nests deeper than a few levels; a deep body would exhaust the stack of
    // the recursive validation and transformation that follow.
    if (depthExceeds(value, MAX_JSON_DEPTH)) {
      return done(new DomainError(ErrorCode.InvalidJson, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    }
    done(null, value);
  });

  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', cacheControl);
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    const status = reply.statusCode;
    metrics.httpDuration.observe({ method: request.method, route, status_code: status }, reply.elapsedTime / 1000);
    if (!UNLOGGED_ROUTES.has(route)) {
      const line = {
        requestId: request.id,
        method: request.method,
        route,
        path: request.url.split('?', 1)[0].slice(0, 512),
        status,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        organizationId: request.organizationId ?? null,
      };
      if (status >= 500) log.error(line, 'request completed');
      else log.info(line, 'request completed');
    }
    done();
  });

  app.useGlobalFilters(new ProblemDetailsFilter(config.publicApiUrl));
  app.useGlobalPipes(new DomainValidationPipe());
  return fastify;
}

const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value nests deeper than `max`, checked without recursion. */
function depthExceeds(root: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The route template, never the raw path, so metrics and logs have bounded cardinality. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? '(unmatched)';
}
