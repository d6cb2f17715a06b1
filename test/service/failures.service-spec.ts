import { AppConfig, ManualClock, REDIS, RescheduleJob, sha256Hex } from '@app/core';
import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { ScenesService } from '@app/scenes';
import { OperationsService, SceneGenerationProcessor, OperationsWorkerModule, SceneOperationsService } from '@app/operations';
// A test reads rows as they are; a lib would ask the scenes' services.
import { OperationsRepository } from '@app/operations/operations.repository';
import { Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { FakeGenerationProvider, PROVIDER_MARKER } from '../support/fake-generation-provider';
import { untilAdmitted } from '../support/admission';
import { setUpServices } from '../support/services';
import { stored } from '../support/stored';

/** What the processor reads of a BullMQ job: attempt `n` (1-based) of three. */
const attempt = (n: number) => ({ attemptsMade: n - 1, opts: { attempts: 3 } }) as Job;

const DEADLINE_SECONDS = 600;

/**
 * Long-running generation at the service tier: the worker's handler called directly, run after
 * run as BullMQ would run it, with the http generator talking to a real local server that plays
 * the provider (the one thing outside our control), on a real database and a clock moved by hand.
 */
describe('long-running generations and their failures on a real database', () => {
  let fake: FakeGenerationProvider;
  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });
  afterAll(async () => {
    await fake?.close();
  });

  const clock = new ManualClock(Date.parse('2026-06-01T08:00:00.000Z'));
  const suite = setUpServices({
    imports: [OperationsWorkerModule],
    clock,
    config: {
      GENERATOR: 'http',
      // The provider's address is only known once it listens: a getter read when the suite boots.
      get GENERATION_PROVIDER_URL() {
        return fake.url;
      },
      GENERATION_PROVIDER_API_KEY: 'pk_fake',
      // No test here waits for a timeout; the fake renders with sharp, which on a busy machine
      // (other test files in parallel) can take seconds: a short timeout made a slow answer a failure.
      GENERATION_PROVIDER_TIMEOUT_MS: '30000',
      GENERATION_DEADLINE_SECONDS: String(DEADLINE_SECONDS),
      GENERATION_POLL_INTERVAL_MS: '2000',
      GENERATION_POLL_MAX_MS: '15000',
      RECONCILE_INTERVAL_MS: '600000',
    },
  });
  let org: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const processor = () => suite.app.get(SceneGenerationProcessor);
  const operations = () => suite.app.get(OperationsService);
  const row = (id: string) => suite.app.get(OperationsRepository).findById(id);
  const db = () => suite.app.get(DataSource);
  /** As if the provider's pause (its 429's Retry-After, shared by the fleet in Redis) had passed. */
  const endProviderPause = () => suite.app.get<Redis>(REDIS).del(`${suite.app.get(AppConfig).queuePrefix}:provider-paused`);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });
  beforeEach(async () => {
    fake.submitBehaviour = 'accept';
    fake.jobBehaviour = 'succeed';
    fake.jobDurationMs = 0;
    fake.result = 'ok';
    fake.pollsFailing = false;
    fake.hold();
    await endProviderPause();
  });

  async function create(prompt: string, externalRef?: string): Promise<string> {
    const created = await sceneOperations().create(
      org.organizationId,
      { key: randomUUID(), scope: 'POST /v1/scenes' },
      { prompt, externalRef },
    );
    // Its turn, as in production, where the job is queued only once admission let it run: the
    // background loop's round usually comes first, but under load a test may not wait on it.
    await untilAdmitted(suite.app, created.value.operationId);
    return created.value.operationId;
  }

  /** One run of the job, as BullMQ would make it; a reschedule (the job waits for its next poll) is returned. */
  async function runOnce(operationId: string, n = 1): Promise<unknown> {
    try {
      return await processor().generate({ operationId }, attempt(n));
    } catch (e) {
      if (e instanceof RescheduleJob) return e;
      throw e;
    }
  }

  /** Runs the job until it stops rescheduling itself (a few runs: the fake's jobs are instant by default). */
  async function runToEnd(operationId: string): Promise<unknown> {
    for (let i = 0; i < 10; i++) {
      const outcome = await runOnce(operationId);
      if (!(outcome instanceof RescheduleJob)) return outcome;
    }
    throw new Error(`${operationId} kept rescheduling`);
  }

  describe('submit, record, poll, fetch', () => {
    it('records the provider job before anything else, waits without a slot, and resumes that same job', async () => {
      fake.jobBehaviour = 'gated';
      fake.gatedProgress = 0.5;
      const id = await create('A world that takes minutes');

      const first = await runOnce(id);
      expect(first).toBeInstanceOf(RescheduleJob);
      expect((first as RescheduleJob).delayMs).toBe(2000);
      const recorded = await row(id);
      expect(recorded).toMatchObject({
        status: 'processing',
        stage: 'generating',
        generator: 'http',
        providerJob: { id: expect.any(String) },
      });
      expect(fake.jobsFor('A world that takes minutes')).toHaveLength(1);

      // Later runs (in this process or any other: nothing is kept in memory) poll the same job.
      clock.advance(60_000);
      const second = await runOnce(id);
      expect(second).toBeInstanceOf(RescheduleJob);
      // A tenth of the time the job has run, at least the first interval.
      expect((second as RescheduleJob).delayMs).toBe(6000);
      expect(await operations().get(org.organizationId, id)).toMatchObject({ status: 'processing', stage: 'generating', progress: 0.45 });
      expect(fake.submitsFor('A world that takes minutes')).toHaveLength(1);

      // Progress never goes down, whatever the provider says.
      fake.gatedProgress = 0.1;
      await runOnce(id);
      expect(await operations().get(org.organizationId, id)).toMatchObject({ progress: 0.45 });

      fake.release();
      expect(await runOnce(id)).toEqual({ version: 1 });
      expect(await operations().get(org.organizationId, id)).toMatchObject({ status: 'succeeded', version: 1 });
      expect(fake.submitsFor('A world that takes minutes')).toHaveLength(1);
      const { sceneId } = (await row(id))!;
      const [artifact] = (await db().query(`SELECT kind, bytes, sha256 FROM scene_artifacts WHERE scene_id = $1 AND version = 1`, [
        sceneId,
      ])) as { kind: string; bytes: string; sha256: string }[];
      const mesh = (await scenes().readArtifact(sceneId, 1, 'mesh'))!;
      expect(artifact).toEqual({ kind: 'mesh', bytes: String(mesh.bytes.length), sha256: sha256Hex(mesh.bytes) });
      expect(mesh.bytes.subarray(0, 4).toString('latin1')).toBe('glTF');

      // A late duplicate run of the finished job writes nothing more.
      expect(await runOnce(id)).toEqual({ skipped: 'succeeded' });
    });

    it('a provider briefly away while polling is waited out, spending no attempt', async () => {
      fake.jobBehaviour = 'gated';
      const id = await create('Polled through an outage');
      await runOnce(id);
      fake.pollsFailing = true;
      for (let i = 0; i < 5; i++) expect(await runOnce(id, 3)).toBeInstanceOf(RescheduleJob);
      expect(await row(id)).toMatchObject({ status: 'processing' });
      fake.pollsFailing = false;
      fake.release();
      expect(await runOnce(id, 3)).toEqual({ version: 1 });
    });

    it('a job past GENERATION_DEADLINE_SECONDS fails provider_timeout and is cancelled at the provider', async () => {
      fake.jobBehaviour = 'never';
      const id = await create('Never finishes', 'deadline-1');
      await runOnce(id);
      clock.advance((DEADLINE_SECONDS - 1) * 1000);
      expect(await runOnce(id)).toBeInstanceOf(RescheduleJob);
      clock.advance(2000);
      expect(await runOnce(id)).toEqual({ failed: 'deadline' });
      expect(await operations().get(org.organizationId, id)).toMatchObject({
        status: 'failed',
        error: { code: 'provider_timeout', retryable: true },
      });
      const job = (await row(id))!;
      expect(job.providerCancelledAt).not.toBeNull();
      expect(fake.jobs.get(job.providerJob!.id)?.cancelled).toBe(true);
      expect(await scenes().findByExternalRef(org.organizationId, 'deadline-1')).toBeNull();
    });
  });

  describe('cancel', () => {
    it('ends a processing creation at once, frees its externalRef, and its next run cancels the provider job once', async () => {
      fake.jobBehaviour = 'never';
      const id = await create('Changed my mind', 'cancel-1');
      await runOnce(id);
      const cancelled = await operations().cancel(org.organizationId, id);
      expect(cancelled).toEqual({
        operationId: id,
        kind: 'scene.create',
        externalRef: 'cancel-1',
        status: 'failed',
        error: { code: 'cancelled', message: 'The operation was cancelled.', retryable: true },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        completedAt: expect.any(String),
      });
      expect(await scenes().findByExternalRef(org.organizationId, 'cancel-1')).toBeNull();
      expect((await create('Again', 'cancel-1')).startsWith('op_')).toBe(true);

      // Its next run cancels the provider job, sees it end (cancelled: failed at the provider) and
      // frees the slot it kept; a run after that finds nothing left to do.
      expect(await runOnce(id)).toEqual({ released: 'provider job failed' });
      const job = (await row(id))!;
      expect(fake.jobs.get(job.providerJob!.id)?.cancelled).toBe(true);
      const cancelCalls = () => fake.requests.filter((r) => r.path === `/v2/generations/${job.providerJob!.id}:cancel`).length;
      expect(cancelCalls()).toBe(1);
      expect(await runOnce(id)).toEqual({ skipped: 'failed' });
      expect(cancelCalls()).toBe(1);
      // Cancelling again changes nothing.
      expect(await operations().cancel(org.organizationId, id)).toEqual(cancelled);
    });

    it('a result arriving after the cancel is not written', async () => {
      fake.jobBehaviour = 'gated';
      const id = await create('Cancelled just before it finished');
      await runOnce(id);
      await operations().cancel(org.organizationId, id);
      fake.release();
      // The provider's job ended: the slot it kept is freed, and nothing of the result is written.
      expect(await runOnce(id)).toEqual({ released: expect.stringMatching(/^provider job /) });
      const { sceneId } = (await row(id))!;
      expect(await stored(db()).sceneVersionCount(sceneId)).toBe(0);
    });

    it("a finished operation is returned as it is; another organization's or an unknown one is not found", async () => {
      const id = await create('Done before the cancel');
      expect(await runToEnd(id)).toEqual({ version: 1 });
      const before = await operations().get(org.organizationId, id);
      expect(await operations().cancel(org.organizationId, id)).toEqual(before);
      const other = await createOrganization(suite.app);
      expect(await operations().cancel(other.organizationId, id)).toBeNull();
      expect(await operations().cancel(org.organizationId, 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE')).toBeNull();
    });
  });

  describe('failures', () => {
    it('a retryable submit failure is thrown back for BullMQ to retry, recording nothing, until the last attempt', async () => {
      const id = await create('A lighthouse', 'fail-retry');
      fake.submitBehaviour = 'server-error';
      const first = runOnce(id, 1);
      await expect(first).rejects.toThrow('provider_unavailable');
      await expect(first).rejects.not.toBeInstanceOf(UnrecoverableError);
      expect(await row(id)).toMatchObject({ status: 'processing', providerJob: null });

      await expect(runOnce(id, 3)).rejects.toBeInstanceOf(UnrecoverableError);
      const op = await operations().get(org.organizationId, id);
      expect(op).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable', retryable: true } });
      expect(JSON.stringify(op)).not.toContain(PROVIDER_MARKER);
      // A failed creation is not an active scene: its externalRef is free again.
      expect(await scenes().findByExternalRef(org.organizationId, 'fail-retry')).toBeNull();
    });

    it('a provider that asks for a pause before the submit (429, Retry-After) is waited for without spending an attempt', async () => {
      const id = await create('Rate limited at first');
      fake.submitBehaviour = 'rate-limited';
      const waited = await runOnce(id, 3);
      expect(waited).toBeInstanceOf(RescheduleJob);
      expect((waited as RescheduleJob).delayMs).toBe(7000);
      expect(await row(id)).toMatchObject({ status: 'processing', providerJob: null, stage: 'queued' });
      // The whole fleet holds back, not this job alone: another run before the pause ends waits too.
      fake.submitBehaviour = 'accept';
      const again = await runOnce(await create('Another while paused'));
      expect(again).toBeInstanceOf(RescheduleJob);
      expect((again as RescheduleJob).delayMs).toBeGreaterThan(0);
      expect((again as RescheduleJob).delayMs).toBeLessThanOrEqual(7000);
      await endProviderPause();
      expect(await runToEnd(id)).toEqual({ version: 1 });
    });

    it.each([
      ['bad-request', 'provider_rejected', false],
      ['quota', 'provider_quota_exceeded', false],
      ['garbage-json', 'generation_failed', false],
    ] as const)('a submit answered %s fails the operation at the first attempt: %s', async (behaviour, code, retryable) => {
      const id = await create(`Refused: ${behaviour}`);
      fake.submitBehaviour = behaviour;
      await expect(runOnce(id, 1)).rejects.toBeInstanceOf(UnrecoverableError);
      const op = await operations().get(org.organizationId, id);
      expect(op).toMatchObject({ status: 'failed', error: { code, retryable } });
      expect(JSON.stringify(op)).not.toContain(PROVIDER_MARKER);
    });

    it('a job that fails at the provider, or a result that is not a scene, fails in our words', async () => {
      fake.jobBehaviour = 'fail';
      const failedJob = await create('The provider gives up');
      await runOnce(failedJob);
      expect(await runOnce(failedJob)).toEqual({ failed: 'generation_failed' });
      const a = await operations().get(org.organizationId, failedJob);
      expect(a).toMatchObject({ status: 'failed', error: { code: 'generation_failed', retryable: true } });

      fake.jobBehaviour = 'succeed';
      fake.result = 'corrupt-glb';
      const corrupt = await create('A broken file');
      await runOnce(corrupt);
      expect(await runOnce(corrupt)).toEqual({ failed: 'generation_failed' });
      const b = await operations().get(org.organizationId, corrupt);
      expect(b).toMatchObject({ status: 'failed', error: { code: 'generation_failed', retryable: false } });
      expect(JSON.stringify([a, b])).not.toContain(PROVIDER_MARKER);
    });

    it('a failed edit leaves the scene ready at its version', async () => {
      const id = await create('An edited lighthouse', 'fail-edit');
      expect(await runToEnd(id)).toEqual({ version: 1 });
      const { sceneId } = (await scenes().findByExternalRef(org.organizationId, 'fail-edit'))!;
      const edit = await sceneOperations().requestEdit(org.organizationId, sceneId, 'Add fog');
      fake.submitBehaviour = 'bad-request';
      await expect(processor().edit({ operationId: edit.operationId }, attempt(1))).rejects.toBeInstanceOf(UnrecoverableError);
      expect(await operations().get(org.organizationId, edit.operationId)).toMatchObject({ status: 'failed' });
      expect(await scenes().get(org.organizationId, sceneId)).toMatchObject({ status: 'ready', version: 1 });
    });

    it('deleting the scene while the provider works cancels the provider job at the next run', async () => {
      fake.jobBehaviour = 'never';
      const id = await create('Deleted mid-generation', 'deleted-1');
      await runOnce(id);
      const { sceneId } = (await row(id))!;
      await scenes().delete(org.organizationId, sceneId);
      // Its next run cancels the provider job and, once the provider reports it ended, frees the slot it kept.
      expect(await runOnce(id)).toEqual({ released: 'provider job failed' });
      expect(fake.jobs.get((await row(id))!.providerJob!.id)?.cancelled).toBe(true);
    });
  });
});
