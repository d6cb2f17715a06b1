import { TcpProxy } from '@app/core/testing';
import { QueueService } from '@app/core';
import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { startApi, startWorker } from '../support/apps';
import { FakeGenerationProvider, PROVIDER_MARKER } from '../support/fake-generation-provider';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { freePort, ServiceProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { redisPort } from '../support/server-ports';
import { SCENES_QUEUE } from '@app/operations';
import { stored } from '../support/stored';

describe('faults: the work still happens, once, and failures stay safe', () => {
  // The fake provider starts before the suite's apps and stops after them.
  let fake: FakeGenerationProvider;

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });

  const suite = setUpSuite();

  afterAll(async () => {
    await fake?.close();
  });

  beforeEach(() => {
    fake.submitBehaviour = 'accept';
    fake.jobBehaviour = 'succeed';
    fake.jobDurationMs = 0;
    fake.result = 'ok';
    fake.hold();
  });

  const db = () => suite.api.app.get(DataSource);
  const operationRow = (id: string) => stored(db()).operation(id);
  const versionsOf = (sceneId: string) => stored(db()).sceneVersionCount(sceneId);
  const submitted = (id: string) =>
    pollUntil(
      () => operationRow(id),
      (row) => row.providerJob !== null,
      { what: `the provider job of ${id} to be recorded` },
    );

  /** Worker settings for fault tests: the http generator against the fake, quick polls and stall detection. */
  const workerEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: suite.env.databaseUrl,
    QUEUE_PREFIX: suite.env.queuePrefix,
    GENERATOR: 'http',
    GENERATION_PROVIDER_URL: fake.url,
    GENERATION_PROVIDER_API_KEY: 'pk_fake',
    GENERATION_BACKOFF_MS: '50',
    GENERATION_POLL_INTERVAL_MS: '50',
    GENERATION_POLL_MAX_MS: '200',
    WORKER_LOCK_DURATION_MS: '1500',
    WORKER_STALLED_INTERVAL_MS: '500',
    RECONCILE_INTERVAL_MS: '200',
    RECONCILE_GRACE_MS: '60000',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    ...extra,
  });

  it('a worker killed with SIGKILL while the provider works: another worker resumes that job, never submitting again', async () => {
    fake.jobBehaviour = 'gated';
    const first = new ServiceProcess('worker', workerEnv({ WORKER_PORT: String(await freePort()) }));
    let second: ServiceProcess | null = null;
    try {
      await first.waitForOutput(/worker health and metrics/);
      const created = await createScene(suite.api, suite.org, { prompt: 'killed mid-job' });
      await submitted(created.body.operationId);
      const killed = await first.stop('SIGKILL');
      expect(killed.signal).toBe('SIGKILL');

      fake.release();
      second = new ServiceProcess('worker', workerEnv({ WORKER_PORT: String(await freePort()) }));
      const done = await awaitOperation(suite.api, suite.org, created.body.operationId, 30_000);
      expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
      expect(await versionsOf(done.body.sceneId)).toBe(1);
      expect(fake.submitsFor('killed mid-job')).toHaveLength(1);
    } finally {
      fake.release();
      await first.stop('SIGKILL');
      await second?.stop('SIGTERM');
    }
  });

  it('a worker killed during its submit: the retried submit carries the same Idempotency-Key, so the provider runs one job', async () => {
    fake.submitBehaviour = 'gated';
    const first = new ServiceProcess('worker', workerEnv({ WORKER_PORT: String(await freePort()) }));
    let second: ServiceProcess | null = null;
    try {
      await first.waitForOutput(/worker health and metrics/);
      const requested = fake.nextRequest((r) => r.path === '/v2/generations');
      const created = await createScene(suite.api, suite.org, { prompt: 'killed while submitting' });
      await requested;
      await first.stop('SIGKILL');
      // The provider goes on with the job it was asked for; our worker never heard its id.
      fake.release();
      await pollUntil(
        async () => fake.jobsFor('killed while submitting').length,
        (n) => n === 1,
        { what: 'the provider to start the job' },
      );
      expect((await operationRow(created.body.operationId)).providerJob).toBeNull();

      fake.submitBehaviour = 'accept';
      second = new ServiceProcess('worker', workerEnv({ WORKER_PORT: String(await freePort()) }));
      const done = await awaitOperation(suite.api, suite.org, created.body.operationId, 30_000);
      expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
      const submits = fake.submitsFor('killed while submitting');
      expect(submits).toHaveLength(2);
      expect(new Set(submits.map((r) => r.headers['idempotency-key']))).toEqual(new Set([created.body.operationId]));
      expect(fake.jobsFor('killed while submitting')).toHaveLength(1);
    } finally {
      fake.release();
      await first.stop('SIGKILL');
      await second?.stop('SIGTERM');
    }
  });

  it('SIGTERM lets the step in flight finish: the submit is recorded before the worker exits', async () => {
    fake.submitBehaviour = 'gated';
    fake.jobBehaviour = 'never';
    const worker = new ServiceProcess('worker', workerEnv({ WORKER_PORT: String(await freePort()) }));
    try {
      await worker.waitForOutput(/worker health and metrics/);
      const requested = fake.nextRequest((r) => r.path === '/v2/generations');
      const created = await createScene(suite.api, suite.org, { prompt: 'graceful stop' });
      await requested;
      worker.child.kill('SIGTERM');
      await worker.waitForOutput(/shutting down \(SIGTERM\)/);
      expect(worker.child.exitCode).toBeNull();
      fake.release();
      const exit = await worker.exited;
      expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
      // The submit it was waiting on finished and was recorded: the next worker polls that job.
      expect(await operationRow(created.body.operationId)).toMatchObject({
        status: 'processing',
        providerJob: { id: expect.any(String) },
      });
      expect(fake.jobsFor('graceful stop')).toHaveLength(1);
    } finally {
      fake.release();
      await worker.stop('SIGKILL');
    }
  });

  describe('with an in-process worker', () => {
    let worker: INestApplicationContext;

    beforeAll(async () => {
      worker = await startWorker(suite.env, { config: workerEnv() });
    });

    afterAll(async () => {
      fake.release();
      await worker?.close();
    });

    const jobState = async (operationId: string) => {
      const job = await worker.get(QueueService).queue(SCENES_QUEUE).getJob(operationId);
      return job ? job.getState() : 'missing';
    };

    it('deletion during generation: the scene never comes back, its files are discarded, its provider job cancelled', async () => {
      fake.jobBehaviour = 'gated';
      const created = await createScene(suite.api, suite.org, { prompt: 'deleted while generating', externalRef: 'doomed' });
      const { sceneId, providerJob: job } = await submitted(created.body.operationId);
      expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
      fake.release();
      await pollUntil(
        () => jobState(created.body.operationId),
        (s) => s === 'completed' || s === 'failed',
        { what: 'the job to end' },
      );

      expectProblem(await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth), 404, 'not_found');
      expectProblem(await suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth), 404, 'not_found');
      expect(await operationRow(created.body.operationId)).toMatchObject({ status: 'failed', errorCode: 'scene_deleted' });
      expect(await versionsOf(sceneId)).toBe(0);
      const blobs = await db().query(`SELECT count(*) AS n FROM blobs WHERE key LIKE $1`, [`scenes/${sceneId}/%`]);
      expect(Number(blobs[0].n)).toBe(0);
      expect(fake.jobs.get((job as { id: string }).id)?.cancelled).toBe(true);
      expect((await createScene(suite.api, suite.org, { prompt: 'x', externalRef: 'doomed' })).status).toBe(202);
    });

    it('a partner cancels while the provider works: failed `cancelled` at once, and the provider job cancelled promptly', async () => {
      fake.jobBehaviour = 'never';
      const created = await createScene(suite.api, suite.org, { prompt: 'cancel me', externalRef: 'cancelled-ref' });
      const { providerJob: job } = await submitted(created.body.operationId);
      const res = await suite.api.http().post(`/v1/operations/${created.body.operationId}:cancel`).set(suite.org.auth);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'cancelled', retryable: true } });
      await pollUntil(
        async () => fake.jobs.get((job as { id: string }).id)?.cancelled,
        (cancelled) => cancelled === true,
        { what: 'the provider job to be cancelled' },
      );
      expect((await createScene(suite.api, suite.org, { prompt: 'again', externalRef: 'cancelled-ref' })).status).toBe(202);
    });

    it('a job that always fails to submit ends failed with a safe error after its attempts', async () => {
      fake.submitBehaviour = 'server-error';
      const created = await createScene(suite.api, suite.org, { prompt: 'always fails', externalRef: 'will-fail' });
      const done = await awaitOperation(suite.api, suite.org, created.body.operationId);
      expect(done.body).toEqual({
        operationId: created.body.operationId,
        kind: 'scene.create',
        externalRef: 'will-fail',
        status: 'failed',
        error: { code: 'provider_unavailable', message: expect.any(String), retryable: true },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        completedAt: expect.any(String),
      });
      expect(JSON.stringify(done.body)).not.toContain(PROVIDER_MARKER);
      expect(JSON.stringify(done.body)).not.toMatch(/at \w|Error:|stack|500/);
      expect(fake.submitsFor('always fails')).toHaveLength(3); // GENERATION_ATTEMPTS
      // A failed creation is not an active scene: 404, and its externalRef is free.
      const { sceneId } = await operationRow(created.body.operationId);
      expectProblem(await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth), 404, 'not_found');
      expectProblem(await suite.api.http().get('/v1/scenes').query({ externalRef: 'will-fail' }).set(suite.org.auth), 404, 'not_found');
      fake.submitBehaviour = 'accept';
      expect((await createScene(suite.api, suite.org, { prompt: 'second try', externalRef: 'will-fail' })).status).toBe(202);
    });

    it('a permanent provider refusal fails at once, not retryable', async () => {
      fake.submitBehaviour = 'bad-request';
      const created = await createScene(suite.api, suite.org, { prompt: 'refused' });
      const done = await awaitOperation(suite.api, suite.org, created.body.operationId);
      expect(done.body.error).toEqual({ code: 'provider_rejected', message: expect.any(String), retryable: false });
      expect(fake.submitsFor('refused')).toHaveLength(1);
    });

    it('a transient failure is retried and then succeeds', async () => {
      fake.submitBehaviour = 'unavailable';
      const created = await createScene(suite.api, suite.org, { prompt: 'flaky provider' });
      await pollUntil(
        async () => fake.submitsFor('flaky provider').length,
        (n) => n >= 1,
        { what: 'the first attempt' },
      );
      fake.submitBehaviour = 'accept';
      expect((await awaitOperation(suite.api, suite.org, created.body.operationId)).body).toMatchObject({
        status: 'succeeded',
        version: 1,
      });
    });
  });

  it('Redis unreachable when a scene is created: 202, and the work completes once Redis is back', async () => {
    const proxy = new TcpProxy('127.0.0.1', redisPort());
    const port = await proxy.start();
    const redisUrl = `redis://127.0.0.1:${port}`;
    const cutApi = await startApi(suite.env, { config: { REDIS_URL: redisUrl } });
    const worker = await startWorker(suite.env, { config: { ...workerEnv({ REDIS_URL: redisUrl }), RECONCILE_GRACE_MS: '300' } });
    try {
      await proxy.cut();
      const created = await createScene(cutApi, suite.org, { prompt: 'while redis was down' });
      expect(created.status).toBe(202);
      const id = created.body.operationId;
      expect(await operationRow(id)).toMatchObject({ status: 'processing' });
      expect((await operationRow(id)).enqueuedAt).toBeNull();

      await proxy.restore();
      const done = await awaitOperation(cutApi, suite.org, id, 30_000);
      expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
      expect(await versionsOf(done.body.sceneId)).toBe(1);
    } finally {
      // Closed while Redis answers: a job whose end BullMQ is still recording must not wait
      // out the shutdown timeout on a cut connection.
      await worker.close();
      await cutApi.close();
      await proxy.cut();
    }
  });
});
