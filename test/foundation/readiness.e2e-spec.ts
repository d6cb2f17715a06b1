import { AppConfig, openOpsServer, opsDependencies } from '@app/core';
import { TcpProxy } from '@app/core/testing';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { RunningHttpApp, startApi, startOps, startStudio } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { redisPort } from '../support/server-ports';

describe('readiness', () => {
  // No apps here: each test starts its own.
  const suite = setUpSuite({ api: false });

  it('is 503 unavailable from the start when Redis is on a closed port', async () => {
    const api = await startApi(suite.env, { config: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const res = await api.http().get('/readyz');
      expectProblem(res, 503, 'unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.checks).toEqual({ database: 'up', redis: 'down' });
      expect((await api.http().get('/healthz')).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it.each([
    ['Redis', 'redis'],
    ['Postgres', 'database'],
  ] as const)('turns 503 when %s becomes unreachable and recovers when it is back', async (_, check) => {
    // The servers the suite really uses (on a bare machine, ones it started on other ports).
    const database = new URL(suite.env.databaseUrl);
    const port = check === 'redis' ? redisPort() : Number(database.port || 5432);
    const proxy = new TcpProxy('127.0.0.1', port);
    const proxyPort = await proxy.start();
    database.port = String(proxyPort);
    const config = check === 'redis' ? { REDIS_URL: `redis://127.0.0.1:${proxyPort}` } : { DATABASE_URL: database.toString() };
    const studio = await startStudio(suite.env, { config });
    try {
      expect((await studio.http().get('/readyz')).status).toBe(200);
      await proxy.cut();
      const down = await pollUntil(
        () => studio.http().get('/readyz'),
        (r) => r.status === 503,
        { what: `${check} down` },
      );
      expectProblem(down, 503, 'unavailable');
      expect(down.body.checks[check]).toBe('down');
      await proxy.restore();
      await pollUntil(
        () => studio.http().get('/readyz'),
        (r) => r.status === 200,
        { what: `${check} back` },
      );
    } finally {
      await proxy.cut();
      await studio.close();
    }
  });

  it('the studio exposes health on its port and metrics on its ops port', async () => {
    const studio: RunningHttpApp = await startStudio(suite.env);
    try {
      expect((await studio.http().get('/healthz')).body).toEqual({ status: 'ok' });
      expect((await studio.http().get('/readyz')).status).toBe(200);
      // Metrics on its ops port only, never on the embed origin browsers reach.
      expectProblem(await studio.http().get('/metrics'), 404, 'not_found');
      const ops = await startOps(studio.app);
      try {
        const metrics = await ops.http().get('/metrics');
        expect(metrics.text).toContain('http_request_duration_seconds');
        expect(metrics.text).toContain('process_resident_memory_bytes');
      } finally {
        await ops.close();
      }
    } finally {
      await studio.close();
    }
  });

  it('an ops port opened before its application exists is alive but not ready until the application is attached', async () => {
    // The worker takes its port this way before it joins the queues (apps/worker/src/main.ts).
    const studio = await startStudio(suite.env);
    const ops = await openOpsServer(studio.app.get(AppConfig), 0, '127.0.0.1');
    const url = `http://127.0.0.1:${(ops.server.address() as AddressInfo).port}`;
    try {
      expect((await request(url).get('/healthz')).body).toEqual({ status: 'ok' });
      for (const path of ['/readyz', '/metrics']) {
        const res = await request(url).get(path);
        expectProblem(res, 503, 'unavailable');
        expect(res.headers['retry-after']).toBe('1');
      }
      ops.attach(opsDependencies(studio.app));
      expect((await request(url).get('/readyz')).status).toBe(200);
      expect((await request(url).get('/metrics')).text).toContain('process_resident_memory_bytes');
    } finally {
      await new Promise<void>((resolve) => ops.server.close(() => resolve()));
      await studio.close();
    }
  });
});
