import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Server } from 'node:http';
import { AppConfig } from '../config';
import { DomainError } from '../errors';
import { REQUEST_LOGGER, RequestLogger } from '../logging';
import { MetricsService } from '../metrics';
import { hostHeaderError } from './host-header';
import { jsonBodyParser } from './json-body';
import { answerParserErrors } from './parser-errors';
import { problemSettings } from './problem';
import { ProblemDetailsFilter, sendProblem } from './problem-details.filter';
import { requestIdFor } from './request-id';
import { DomainValidationPipe } from './validation';
import type { HttpAdapter } from './http-adapter';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request id: echoed from a safe incoming X-Request-Id, or generated. */
      requestId: string;
      /** Set once the caller is authenticated; written into the request log line. */
      organizationId?: string;
      /** The route label of a response not served by a Nest route (static files). */
      routeLabel?: string;
    }
  }
}

/** Probes are scraped every few seconds; logging each would drown the request log. */
const UNLOGGED_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * Idle keep-alive connections are kept this long: longer than the 60 s idle timeout of common load
 * balancers, so the balancer, not us, closes an idle connection (no race on a reused socket).
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * A whole request's backstop where the process names none (the studio, the ops ports): 150 s, as
 * long as the api's at its default upload settings (a 30 s wait for a slot, a 120 s body).
 */
const DEFAULT_REQUEST_TIMEOUT_MS = 150_000;

/**
 * The adapter the api and the studio are built on. Its module, and with it Express and Nest's
 * Express platform (about 80 modules), is loaded here, when an HTTP process makes its adapter, and
 * not by every process that imports core: the CLI never serves HTTP.
 */
export function createHttpAdapter(): HttpAdapter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  const { HttpAdapter } = require('./http-adapter') as typeof import('./http-adapter');
  return new HttpAdapter();
}

export interface HttpAppOptions {
  /** `Cache-Control` of every response whose route sets none (default `no-store`). */
  defaultCacheControl?: string;
  /** Middleware that must run before any body is read (the api's authentication). */
  beforeBody?: RequestHandler[];
  /** Static files, served before the body parser and the routes. */
  staticFiles?: Array<{ path: string; label: string; handler: RequestHandler }>;
  /**
   * The backstop for receiving a whole request (`server.requestTimeout`): longer than any route's
   * own limits (the api's uploads: their wait for a slot plus their body), which answer first.
   */
  requestTimeoutMs?: number;
}

/**
 * `http_request_duration_seconds.observe`, with each (method, route, status) series' child kept:
 * prom-client otherwise hashes the label object on every request (about 1 % of the api's CPU when
 * polling). Routes are templates and statuses few, so the cache stays small; past its bound it
 * stops growing and falls back to the plain call.
 */
function durationObserver(metrics: MetricsService): (method: string, route: string, status: number, seconds: number) => void {
  const children = new Map<string, { observe(value: number): void }>();
  return (method, route, status, seconds) => {
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      if (children.size >= 2000) return metrics.httpDuration.observe({ method, route, status_code: status }, seconds);
      child = metrics.httpDuration.labels({ method, route, status_code: status });
      children.set(key, child);
    }
    child.observe(seconds);
  };
}

/**
 * Everything the HTTP processes (api and studio) share: request ids, security and cache headers,
 * the request log line and metrics, graceful shutdown, the JSON body parser, problem details and
 * validation. Call before `init()`; the order of the middleware is the order of a request.
 */
export function configureHttpApp(app: NestExpressApplication, options: HttpAppOptions = {}): Express {
  const config = app.get(AppConfig);
  const metrics = app.get(MetricsService);
  const log = app.get<RequestLogger>(REQUEST_LOGGER);
  const adapter = app.getHttpAdapter() as unknown as HttpAdapter;
  const instance = adapter.getInstance<Express>();
  const cacheControl = options.defaultCacheControl ?? 'no-store';
  adapter.drainTimeoutMs = config.shutdownTimeoutMs;
  // Who the client is (req.ip, the per-address limit): the socket's peer unless TRUSTED_PROXIES
  // names the proxies whose X-Forwarded-For may be believed.
  instance.set('trust proxy', config.trustProxy);
  const server: Server = app.getHttpServer();
  configureServerTimeouts(server, config, options.requestTimeoutMs);
  const problems = problemSettings(app);
  answerParserErrors(server, problems);
  // A connection the server never lets go shows here (the hostile-upload campaigns check it).
  metrics.gauge('http_open_connections', 'Open connections on the public port of this process', [], async function () {
    this.set(await new Promise<number>((resolve) => server.getConnections((e, n) => resolve(e ? 0 : n))));
  });

  const observeDuration = durationObserver(metrics);

  instance.use((req: Request, res: Response, next: NextFunction) => {
    const startedAt = performance.now();
    req.requestId = requestIdFor(req);
    // Defaults a route may override (static files drop the cache default: they set their own).
    res.setHeader('x-request-id', req.requestId);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', cacheControl);
    // 'close' follows 'finish', and also comes when the client went away first.
    res.once('close', () => {
      adapter.untrack(res);
      const route = routeOf(req);
      const status = res.statusCode;
      const elapsedMs = performance.now() - startedAt;
      observeDuration(req.method, route, status, elapsedMs / 1000);
      if (UNLOGGED_ROUTES.has(route)) return;
      const line = {
        requestId: req.requestId,
        method: req.method,
        route,
        path: req.originalUrl.split('?', 1)[0].slice(0, 512),
        status,
        durationMs: Math.round(elapsedMs * 100) / 100,
        organizationId: req.organizationId ?? null,
      };
      if (status >= 500) log.error(line, 'request completed');
      else log.info(line, 'request completed');
    });
    const badHost = hostHeaderError(req);
    if (badHost) {
      res.setHeader('connection', 'close');
      return sendProblem(req, res, badHost, problems);
    }
    // A request that reaches a closing process on a kept-alive connection.
    if (adapter.closing) {
      res.setHeader('connection', 'close');
      return sendProblem(req, res, DomainError.unavailable(), problems);
    }
    adapter.track(res);
    next();
  });
  for (const handler of options.beforeBody ?? []) instance.use(handler);
  for (const { path, label, handler } of options.staticFiles ?? []) {
    instance.use(path, (req: Request, res: Response, next: NextFunction) => {
      req.routeLabel = label;
      res.removeHeader('cache-control');
      handler(req, res, (error?: unknown) => {
        res.setHeader('cache-control', cacheControl);
        // Not a file of ours: the routes (and their 404) answer.
        req.routeLabel = undefined;
        next(error);
      });
    });
  }
  instance.use(jsonBodyParser(config.http.jsonBodyTimeoutMs));

  app.useGlobalFilters(new ProblemDetailsFilter(problems));
  app.useGlobalPipes(new DomainValidationPipe());
  return instance;
}

/**
 * The timeouts of every phase of a request that routes do not handle themselves: the request line
 * and headers (`HTTP_HEADERS_TIMEOUT_SECONDS`), and a backstop for a whole request (the process's
 * `requestTimeoutMs`, with room to spare: routes answer their own timeouts first), both answered
 * `408` by the parser-error handler; idle keep-alive connections close after 72 s. JSON bodies
 * and uploads have their own, shorter limits (json-body.ts, the upload route).
 */
export function configureServerTimeouts(server: Server, config: AppConfig, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.http.headersTimeoutMs;
  server.requestTimeout = requestTimeoutMs + 10_000;
}

/** The route template, never the raw path, so metrics and logs have bounded cardinality. */
export function routeOf(request: Request): string {
  return request.routeLabel ?? (request.route as { path?: string } | undefined)?.path ?? '(unmatched)';
}
