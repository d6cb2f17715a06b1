import { freePort, run, ServiceProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';

describe('worker process', () => {
  // No apps here: each test starts its own processes.
  const suite = setUpSuite({ api: false });

  it('serves health, readiness and queue metrics on WORKER_PORT, and stops on SIGTERM', async () => {
    const port = await freePort();
    const worker = new ServiceProcess('worker', {
      DATABASE_URL: suite.env.databaseUrl,
      QUEUE_PREFIX: suite.env.queuePrefix,
      WORKER_PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    try {
      await worker.waitForOutput(/worker health and metrics on/);
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/queue_jobs\{queue="maintenance",state="delayed"\} \d+/);
      expect(metrics).toContain('# TYPE job_duration_seconds histogram');
      const unknown = await fetch(`http://127.0.0.1:${port}/nope`);
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    } finally {
      const exit = await worker.stop('SIGTERM');
      expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    }
    expect(worker.stdout).toMatch(/shutting down \(SIGTERM\)/);
  });

  it('refuses to start when a declared job has no handler', async () => {
    // The worker's infrastructure without the domain modules that handle jobs, as a real process.
    const script = `
      const { Module } = require('@nestjs/common');
      const { NestFactory } = require('@nestjs/core');
      const core = require('./dist/libs/core/src');
      const { WORKER_JOBS } = require('./dist/apps/worker/src/worker-jobs');
      class Shell {}
      Module({ imports: [core.CoreModule.forRoot({ app: 'worker' }), core.HealthServiceModule, core.JobWorkerModule.forRoot(WORKER_JOBS)] })(Shell);
      NestFactory.createApplicationContext(Shell, { abortOnError: false, logger: false })
        .then(() => process.exit(0), (e) => { process.stderr.write(e.message); process.exit(1); });`;
    const r = await run(process.execPath, ['-e', script], {
      env: { ...process.env, DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix, LOG_LEVEL: 'silent' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Refusing to start: /);
    expect(r.stderr).toContain('job "image-assets.purge-expired" has no handler');
    expect(r.stderr).toContain('job "scene.generate" has no handler');
  });
});
