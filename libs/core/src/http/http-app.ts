import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import express, { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { NestApplicationOptions, StreamableFile } from '@nestjs/common';
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
 * An Express application with the settings every HTTP process shares. They must be set before
 * the first middleware is added: Express builds its router with them then.
 */
export function createExpressInstance(): Express {
  const app = express();
  // Paths match exactly (`/V1/scenes` and `/v1/scenes/` are not routes).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // API answers are no-store: an ETag would only cost a hash of every body. Static files get
  // theirs from the static middleware.
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set('query parser', 'simple');
  return app;
}

/**
 * An HTTP server for an Express app whose requests and responses are born with Express's
 * prototypes. Express otherwise re-parents every request and response with
 * `Object.setPrototypeOf` on its way in, which V8 handles badly: measured here, a trivial Express
 * route costs 2.5 to 3 × the CPU of plain node:http, a third of it garbage collection
 * (docs/performance.md). Here Node constructs them from subclasses whose prototypes sit in front
 * of Express's, and the app's own prototypes become those subclasses' (they inherit everything
 * Express put there), so Express's `setPrototypeOf` finds the prototype in place and changes
 * nothing. Call it once per app.
 */
export function createExpressServer(app: Express): Server {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  app.request = ExpressRequest.prototype as unknown as Express['request'];
  app.response = ExpressResponse.prototype as unknown as Express['response'];
  return createServer(
    {
      IncomingMessage: ExpressRequest,
      ServerResponse: ExpressResponse,
      // How often Node checks the header and request timeouts (30 s by default): every second,
      // so a stalled client is answered within a second of its limit.
      connectionsCheckingInterval: 1000,
      // Node would answer a missing Host with a bare 400; the first middleware answers it with
      // problem details instead (host-header.ts).
      requireHostHeader: false,
    },
    app,
  );
}

/**
 * Nest's Express adapter with a graceful close: the listener stops, idle keep-alive connections
 * close at once, requests in flight finish (their responses carry `Connection: close`), a request
 * arriving meanwhile on an open connection gets `503 unavailable`, and whatever still runs after
 * the shutdown timeout is cut.
 */
export class HttpAdapter extends ExpressAdapter {
  private isClosing = false;
  private readonly inFlight = new Set<Response>();
  drainTimeoutMs = 25_000;

  constructor() {
    super(createExpressInstance());
  }

  get closing(): boolean {
    return this.isClosing;
  }

  /**
   * A route's JSON answer, written directly. Nest's adapter hands it to Express's `res.json`,
   * which, for the same bytes, parses and re-formats the Content-Type it has just set and checks
   * conditional-request freshness this service never uses (no ETag, no Last-Modified): about
   * 2 % of the api's CPU when polling. Anything else (no body, files, streams, errors, 204/304,
   * a Content-Type the route chose) takes Nest's path.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (
      body === null ||
      typeof body !== 'object' ||
      body instanceof StreamableFile ||
      body instanceof Error ||
      ArrayBuffer.isView(body) ||
      statusCode === 204 ||
      statusCode === 304 ||
      response.headersSent ||
      response.getHeader('content-type') !== undefined
    ) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode) response.statusCode = statusCode;
    const json = JSON.stringify(body);
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.setHeader('content-length', Buffer.byteLength(json));
    return response.end(json);
  }

  /** The server of `createExpressServer` instead of Nest's plain one (TLS ends at the load balancer). */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions) throw new Error('HTTPS is terminated by the load balancer, not by this process');
    this.setHttpServer(createExpressServer(this.getInstance<Express>()));
  }

  /** Responses in flight, so a close can tell them to drop their connections. */
  track(res: Response): void {
    this.inFlight.add(res);
  }

  untrack(res: Response): void {
    this.inFlight.delete(res);
  }

  override async close(): Promise<void> {
    this.isClosing = true;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const server = this.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(() => server.closeAllConnections(), this.drainTimeoutMs);
      deadline.unref();
      server.close(() => {
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
    });
  }
}

export function createHttpAdapter(): HttpAdapter {
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
