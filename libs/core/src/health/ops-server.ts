import type { Request, Response } from 'express';
import type { INestApplicationContext } from '@nestjs/common';
import type { Server } from 'node:http';
import { DomainError, ErrorCode, ErrorTable } from '../errors';
import { ProblemSettings, problemSettings } from '../http/problem';
import { AppConfig } from '../config';
import { createExpressInstance, createExpressServer } from '../http/express-server';
import { configureServerTimeouts } from '../http/http-app';
import { hostHeaderError } from '../http/host-header';
import { answerParserErrors } from '../http/parser-errors';
import { problemErrorHandler } from '../http/problem-details.filter';
import { requestIdFor } from '../http/request-id';
import type { ProcessStops } from '../lifecycle';
import { MetricsService } from '../metrics';
import { notReadyError } from './health.controller';
import { HealthService } from './health.service';

export interface OpsServerDependencies {
  health: HealthService;
  metrics: MetricsService;
  problems: ProblemSettings;
  config: AppConfig;
}

/** What the ops port reports, from the running application. */
export type OpsReports = Pick<OpsServerDependencies, 'health' | 'metrics'>;

export interface OpsServer {
  readonly server: Server;
  /** Starts answering `/readyz` and `/metrics` from the application (until then: `503`). */
  attach(reports: OpsReports): void;
}

/**
 * Every process's operations port: health and metrics for orchestrators and Prometheus, the
 * worker's only HTTP surface and the only place the api and the studio serve `/metrics`, so it
 * never faces partners or browsers (API_OPS_PORT, STUDIO_OPS_PORT, WORKER_PORT). A plain Express
 * app, apart from the Nest application, with the same request ids, headers and problem details.
 *
 * It can listen before the application exists (the worker takes its port before it joins the
 * queues, so a port in use stops it before it has taken a job); until `attach`, `/healthz`
 * answers (the process is alive) and `/readyz` and `/metrics` are `503 unavailable`.
 */
export function openOpsServer(config: AppConfig, port: number, host: string, problems?: ProblemSettings): Promise<OpsServer> {
  // Core's own codes are all this port answers with, so core's table serves before the app exists.
  const settings = problems ?? { baseUrl: config.publicApiUrl, errors: ErrorTable.of() };
  let reports: OpsReports | null = null;
  const app = createExpressInstance();
  app.use((req: Request, res: Response, next) => {
    req.requestId = requestIdFor(req);
    res.set({ 'x-request-id': req.requestId, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    const badHost = hostHeaderError(req);
    if (badHost) res.set('connection', 'close');
    next(badHost ?? undefined);
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (!reports) throw new DomainError(ErrorCode.Unavailable, 'Starting.', { retryAfterSeconds: 1 });
    const report = await reports.health.readiness();
    if (!report.ready) throw notReadyError(report.checks);
    res.json({ status: 'ready', checks: report.checks });
  });
  app.get('/metrics', async (_req, res) => {
    if (!reports) throw new DomainError(ErrorCode.Unavailable, 'Starting.', { retryAfterSeconds: 1 });
    const { contentType, body } = await reports.metrics.render();
    res.type(contentType).send(body);
  });
  app.use((req: Request) => {
    throw req.method === 'GET' || req.method === 'HEAD'
      ? DomainError.notFound()
      : new DomainError(ErrorCode.MethodNotAllowed, 'This port serves only GET /healthz, /readyz and /metrics.');
  });
  app.use(problemErrorHandler(settings));

  const server = createExpressServer(app);
  configureServerTimeouts(server, config);
  answerParserErrors(server, settings);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({ server, attach: (r) => (reports = r) });
    });
  });
}

/** The ops server of a running application (tests; `serveOps`). */
export async function startOpsServer(deps: OpsServerDependencies, port: number, host: string): Promise<Server> {
  const ops = await openOpsServer(deps.config, port, host, deps.problems);
  ops.attach(deps);
  return ops.server;
}

/** The ops server's dependencies, taken from a running application. */
export function opsDependencies(app: INestApplicationContext): OpsServerDependencies {
  const config = app.get(AppConfig);
  return { health: app.get(HealthService), metrics: app.get(MetricsService), problems: problemSettings(app), config };
}

/**
 * Starts the ops server of a process's `main`, closed by its stop after the application: health
 * and metrics (`process_fatal_errors_total` among them) answer while the process drains.
 */
export async function serveOps(app: INestApplicationContext, stops: ProcessStops, port: number, host: string): Promise<Server> {
  const server = await startOpsServer(opsDependencies(app), port, host);
  stops.closeLast(server);
  return server;
}
