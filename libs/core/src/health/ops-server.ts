import { createServer, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { buildProblem, mapError } from '../http/problem';
import { MetricsService } from '../metrics';
import { notReadyError } from './health.controller';
import { HealthService } from './health.service';

/**
 * The worker's only HTTP surface: health and metrics for orchestrators and Prometheus. Plain
 * node:http keeps the worker free of a web framework it would otherwise never use.
 */
export function startOpsServer(
  deps: { health: HealthService; metrics: MetricsService; problemBaseUrl: string },
  port: number,
  host: string,
): Promise<Server> {
  const server = createServer((req, res) => {
    const requestId = randomUUID();
    const path = (req.url ?? '/').split('?', 1)[0];
    const json = (status: number, body: unknown, type = 'application/json; charset=utf-8', extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-request-id': requestId, ...extra });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const fail = (e: unknown) => {
      const p = buildProblem(mapError(e), requestId, deps.problemBaseUrl);
      json(p.status, p.body, p.headers['content-type'], p.headers);
    };
    if (req.method !== 'GET') return fail({ statusCode: 405 });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      deps.health.readiness().then(
        (r) => (r.ready ? json(200, { status: 'ready', checks: r.checks }) : fail(notReadyError(r.checks))),
        fail,
      );
      return;
    }
    if (path === '/metrics') {
      deps.metrics.render().then((m) => json(200, m.body, m.contentType), fail);
      return;
    }
    fail({ statusCode: 404 });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
