import type { Request, Response } from 'express';
import type { Server } from 'node:http';
import { DomainError, ErrorCode } from '../errors';
import { AppConfig } from '../config';
import { configureServerTimeouts, createExpressInstance, createExpressServer } from '../http/http-app';
import { answerParserErrors } from '../http/parser-errors';
import { problemErrorHandler } from '../http/problem-details.filter';
import { requestIdFor } from '../http/request-id';
import { MetricsService } from '../metrics';
import { notReadyError } from './health.controller';
import { HealthService } from './health.service';

/**
 * The worker's only HTTP surface: health and metrics for orchestrators and Prometheus. A plain
 * Express app (the worker is an application context, not a Nest HTTP app) with the same request
 * ids, headers and problem details as the api and the studio.
 */
export function startOpsServer(
  deps: { health: HealthService; metrics: MetricsService; problemBaseUrl: string; config: AppConfig },
  port: number,
  host: string,
): Promise<Server> {
  const app = createExpressInstance();
  app.use((req: Request, res: Response, next) => {
    req.requestId = requestIdFor(req);
    res.set({ 'x-request-id': req.requestId, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await deps.health.readiness();
    if (!report.ready) throw notReadyError(report.checks);
    res.json({ status: 'ready', checks: report.checks });
  });
  app.get('/metrics', async (_req, res) => {
    const { contentType, body } = await deps.metrics.render();
    res.type(contentType).send(body);
  });
  app.use((req: Request) => {
    throw req.method === 'GET' || req.method === 'HEAD'
      ? DomainError.notFound()
      : new DomainError(ErrorCode.MethodNotAllowed, 'This port serves only GET /healthz, /readyz and /metrics.');
  });
  app.use(problemErrorHandler(deps.problemBaseUrl));

  const server = createExpressServer(app);
  configureServerTimeouts(server, deps.config);
  answerParserErrors(server, deps.problemBaseUrl);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
