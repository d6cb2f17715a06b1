import { join } from 'node:path';
import { freePort, run, ROOT, ServiceProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';

describe('configuration at boot', () => {
  it.each([
    ['api', 'API_PORT', 'not-a-port'],
    ['api', 'PUBLIC_EMBED_ORIGIN', 'https://studio.example/path'],
    ['worker', 'WORKER_CONCURRENCY', '0'],
    ['studio', 'LOG_LEVEL', 'loud'],
    ['api', 'REDIS_URL', 'http://127.0.0.1:6379'],
    ['api', 'API_KEY_CACHE_TTL_SECONDS', '6'],
    // Libs' and apps' slices (`<name>.config.ts`), validated with core's variables.
    ['worker', 'WEBHOOK_RETRY_SCHEDULE_MS', '5s,10s'],
    ['api', 'UPLOAD_CONCURRENCY', '0'],
    ['worker', 'OPERATION_RETENTION_DAYS', '0'],
    ['studio', 'STUDIO_EDITS_PER_HOUR', '0'],
  ] as const)('%s refuses %s=%s with a message naming it, and exits 1', async (app, name, value) => {
    const r = await run(process.execPath, [join(ROOT, `dist/apps/${app}/src/main.js`)], {
      env: { ...process.env, [name]: value },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Invalid configuration');
    expect(r.stderr).toContain(name);
  });

  it.each([
    ['worldlabs', 'WORLDLABS_API_KEY'],
    ['meshy', 'MESHY_API_KEY'],
    ['http', 'GENERATION_PROVIDER_URL'],
  ])('a worker with GENERATOR=%s and no %s refuses to start, naming the variable', async (generator, name) => {
    const r = await run(process.execPath, [join(ROOT, 'dist/apps/worker/src/main.js')], {
      env: { ...process.env, GENERATOR: generator, [name]: '' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${name} must be set when GENERATOR is "${generator}"`);
  });

  it('never echoes the value of a bad variable (it may hold a password)', async () => {
    const r = await run(process.execPath, [join(ROOT, 'dist/apps/api/src/main.js')], {
      env: { ...process.env, DATABASE_URL: 'mysql://admin:hunter2@db/x' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('DATABASE_URL');
    expect(r.stderr).not.toContain('hunter2');
  });

  it('with PostgreSQL and Redis unreachable, says so in one JSON line each naming the variable, and exits 1', async () => {
    const [pgPort, redisPort] = [await freePort(), await freePort()];
    const r = await run(process.execPath, [join(ROOT, 'dist/apps/worker/src/main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${pgPort}/scene_studio`,
        REDIS_URL: `redis://:hunter2@127.0.0.1:${redisPort}`,
      },
    });
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'fatal',
        app: 'worker',
        variable: 'DATABASE_URL',
        target: `127.0.0.1:${pgPort}`,
        error: 'ECONNREFUSED',
      }),
      expect.objectContaining({
        level: 'fatal',
        app: 'worker',
        variable: 'REDIS_URL',
        target: `127.0.0.1:${redisPort}`,
        error: 'ECONNREFUSED',
      }),
    ]);
    expect(lines[0].msg).toMatch(/start PostgreSQL there, or set DATABASE_URL/);
    expect(lines[1].msg).toMatch(/apt-get install redis-server/);
    expect(r.stdout + r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toContain('ECONNREFUSED');
  });

  describe('with valid values', () => {
    // Its own database and queue prefix: the default database need not exist on this machine.
    const suite = setUpSuite({ api: false });

    it('starts, answers, serves metrics only on its ops port, and stops on SIGTERM', async () => {
      const port = await freePort();
      const opsPort = await freePort();
      const api = new ServiceProcess('api', {
        API_PORT: String(port),
        API_OPS_PORT: String(opsPort),
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        DATABASE_URL: suite.env.databaseUrl,
        QUEUE_PREFIX: suite.env.queuePrefix,
      });
      try {
        await api.waitForOutput(new RegExp(`api health and metrics on 127.0.0.1:${opsPort}`));
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(res.status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
        const metrics = await fetch(`http://127.0.0.1:${opsPort}/metrics`);
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('redis_circuit_open 0');
        expect((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status).toBe(200);
      } finally {
        const exit = await api.stop('SIGTERM');
        // Nest closes the app, then re-raises the signal.
        expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
      }
    });
  });
});
