import { FatalErrorKind, STOP_MARGIN_MS } from '@app/core';
import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createScene } from '../factories/scene.factory';
import { FakeGenerationProvider } from '../support/fake-generation-provider';
import { pollUntil } from '../support/poll';
import { freePort, ServiceProcess } from '../support/processes';
import { RawConnection, rawUpload, tryConnect } from '../support/raw-http';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

/** Makes a real programming error in the process at each SIGUSR2 (see the file). */
const FIXTURE = join(__dirname, '../support/fixtures/fatal-error-on-signal.js');

/** The JSON log lines of a process at level fatal. */
function fatalLines(process: ServiceProcess): Array<Record<string, unknown>> {
  return process.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 'fatal');
}

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

describe('a programming error nothing caught: logged, counted, then an orderly stop and exit 1', () => {
  let fake: FakeGenerationProvider;

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });

  // The api in this process makes the scene the worker test needs; the processes under test are
  // separate, built ones.
  const suite = setUpSuite();

  afterAll(async () => {
    await fake?.close();
  });

  const running: ServiceProcess[] = [];
  afterEach(async () => {
    fake.release();
    for (const p of running.splice(0)) await p.stop('SIGKILL');
  });

  function start(app: 'api' | 'worker', env: Record<string, string>): ServiceProcess {
    const child = new ServiceProcess(
      app,
      { DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      ['--require', FIXTURE],
    );
    running.push(child);
    return child;
  }

  async function startApiProcess(env: Record<string, string>) {
    const port = await freePort();
    const opsPort = await freePort();
    const api = start('api', { API_PORT: String(port), API_OPS_PORT: String(opsPort), ...env });
    await api.waitForOutput(/api health and metrics on/);
    return { api, port, opsPort };
  }

  /** An upload whose head the api has taken in (it answered 100 Continue) and whose body is half sent. */
  async function uploadInFlight(port: number) {
    const { head, body } = await rawUpload(suite.org.auth.Authorization, ['Expect: 100-continue']);
    const connection = await RawConnection.open(port);
    await connection.write(head);
    expect((await connection.response()).status).toBe(100);
    await connection.write(body.subarray(0, body.length >> 1));
    return { connection, rest: body.subarray(body.length >> 1) };
  }

  it.each<FatalErrorKind>(['uncaughtException', 'unhandledRejection'])(
    'api, %s: one fatal line without the secret, the count on /metrics while it drains, the request in flight answered, new connections refused, exit 1 in time',
    async (kind) => {
      const shutdownTimeoutMs = 10_000;
      const { api, port, opsPort } = await startApiProcess({
        SHUTDOWN_TIMEOUT_SECONDS: String(shutdownTimeoutMs / 1000),
        FATAL_FIXTURE_KIND: kind,
        // A message that leaks a key: logged for diagnosis, with the key taken out.
        FATAL_FIXTURE_MESSAGE: `fixture: request to the partner failed with ${suite.org.apiKey}`,
      });
      const upload = await uploadInFlight(port);

      const firedAt = Date.now();
      api.child.kill('SIGUSR2');
      await api.waitForOutput(/"level":"fatal"/);
      await pollUntil(
        () => tryConnect(port),
        (outcome) => outcome === 'ECONNREFUSED',
        { what: 'the public port to refuse connections' },
      );
      const counted = await metricsText(opsPort);
      expect(counted).toContain(`process_fatal_errors_total{kind="${kind}"} 1`);

      // A second error during the drain is logged and counted; it starts no second stop.
      api.child.kill('SIGUSR2');
      await pollUntil(
        () => metricsText(opsPort),
        (text) => text.includes(`process_fatal_errors_total{kind="${kind}"} 2`),
        { what: 'the second error to be counted' },
      );
      expect(api.child.exitCode).toBeNull();

      await upload.connection.write(upload.rest);
      const answered = await upload.connection.response();
      expect(answered.status).toBe(201);
      expect(answered.headers['connection']).toBe('close');

      const exit = await api.exited;
      expect(exit).toEqual({ code: 1, signal: null });
      expect(Date.now() - firedAt).toBeLessThan(shutdownTimeoutMs + STOP_MARGIN_MS);

      const lines = fatalLines(api);
      expect(lines).toEqual([
        expect.objectContaining({
          app: 'api',
          context: 'ProcessStops',
          kind,
          err: expect.objectContaining({
            type: 'Error',
            message: 'fixture: request to the partner failed with sk_test_[redacted]',
            stack: expect.stringContaining('fatal-error-on-signal.js'),
          }),
          msg: `${kind}: a programming error; the process stops and exits 1`,
        }),
        expect.objectContaining({ kind, msg: `${kind} while stopping (${kind}); the stop goes on` }),
      ]);
      expect(api.stdout + api.stderr).not.toContain(suite.org.apiKey);
      expect(api.stderr).toBe('');
    },
  );

  it('api: a request that never finishes is cut at SHUTDOWN_TIMEOUT_SECONDS, and the process still exits 1', async () => {
    const { api, port } = await startApiProcess({ SHUTDOWN_TIMEOUT_SECONDS: '2', FATAL_FIXTURE_KIND: 'unhandledRejection' });
    const upload = await uploadInFlight(port);

    const firedAt = Date.now();
    api.child.kill('SIGUSR2');
    const exit = await api.exited;
    const tookMs = Date.now() - firedAt;

    expect(exit).toEqual({ code: 1, signal: null });
    expect(tookMs).toBeGreaterThanOrEqual(1900);
    expect(tookMs).toBeLessThan(2000 + STOP_MARGIN_MS);
    await upload.connection.closedPromise;
    await expect(upload.connection.response(0)).rejects.toThrow(/connection closed before a complete response/);
    expect(fatalLines(api)).toHaveLength(1);
  });

  it('worker: the job step in flight gets its time and is recorded, the count shows on WORKER_PORT, then exit 1', async () => {
    fake.hold();
    fake.submitBehaviour = 'gated';
    fake.jobBehaviour = 'never';
    const workerPort = await freePort();
    const worker = start('worker', {
      WORKER_PORT: String(workerPort),
      GENERATOR: 'http',
      GENERATION_PROVIDER_URL: fake.url,
      GENERATION_PROVIDER_API_KEY: 'pk_fake',
      SHUTDOWN_TIMEOUT_SECONDS: '20',
      FATAL_FIXTURE_KIND: 'uncaughtException',
    });
    await worker.waitForOutput(/worker health and metrics on/);
    const requested = fake.nextRequest((r) => r.path === '/v2/generations');
    const created = await createScene(suite.api, suite.org, { prompt: 'a fatal error while submitting' });
    await requested;

    worker.child.kill('SIGUSR2');
    await worker.waitForOutput(/shutting down \(uncaughtException\): no new jobs, waiting for running ones/);
    expect(await metricsText(workerPort)).toContain('process_fatal_errors_total{kind="uncaughtException"} 1');
    expect(worker.child.exitCode).toBeNull();

    // The submit it was waiting on finishes and is recorded before the worker exits.
    fake.release();
    expect(await worker.exited).toEqual({ code: 1, signal: null });
    const operation = await stored(suite.api.app.get(DataSource)).operation(created.body.operationId);
    expect(operation).toMatchObject({ status: 'processing', providerJob: { id: expect.any(String) } });
    expect(fatalLines(worker)).toEqual([
      expect.objectContaining({
        app: 'worker',
        kind: 'uncaughtException',
        msg: 'uncaughtException: a programming error; the process stops and exits 1',
      }),
    ]);
  });
});
