import { ConfigOverrides, ManualClock, RescheduleJob } from '@app/core';
import { ImageAssetsService } from '@app/image-assets';
import { ScenesService } from '@app/scenes';
import {
  OperationsService,
  PROVIDER_ERASURE_ATTEMPTS,
  ProviderErasureEntity,
  SceneGenerationProcessor,
  ScenePurge,
  OperationsWorkerModule,
  SceneOperationsService,
} from '@app/operations';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { FakeGenerationProvider } from '../support/fake-generation-provider';
import { MeshyFake } from '../support/fakes/meshy-fake';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { setUpServices, ServiceSuite } from '../support/services';
import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';

const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Deletion reaches the provider (docs/operations.md, "Data we keep"): the purge of a deleted scene
 * deletes what its jobs left at the provider — Marble's worlds, Meshy's tasks, a protocol-v2
 * generation — through the real adapters against the fakes, retries a provider that fails with a
 * doubling pause (the clock moved by hand), records what it did, and never holds up our own
 * erasure.
 */
function providerSuite(configure: () => ConfigOverrides) {
  const config: Record<string, string | undefined> = {};
  const clock = new ManualClock(Date.parse('2026-06-01T09:00:00.000Z'));
  // Registered before setUpServices' own beforeAll, so the fake's URL is known when it reads `config`.
  beforeAll(() => {
    Object.assign(config, configure());
  });
  const suite = setUpServices({ imports: [OperationsWorkerModule], clock, config });
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });
  return { suite, clock, org: () => org, ...helpers(suite, () => org) };
}

function helpers(suite: ServiceSuite, org: () => TestOrganization) {
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const db = () => suite.app.get(DataSource);

  /** Runs the generation job as BullMQ would, each reschedule at once, until it ends. */
  async function run(operationId: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      try {
        await suite.app.get(SceneGenerationProcessor).generate({ operationId }, firstAttempt);
        return;
      } catch (e) {
        if (!(e instanceof RescheduleJob)) throw e;
        await new Promise((r) => setImmediate(r));
      }
    }
    throw new Error(`operation ${operationId} did not end`);
  }

  async function readyScene(prompt: string, opts: { source?: boolean } = {}) {
    const sourceAssetId = opts.source
      ? (await suite.app.get(ImageAssetsService).upload(org().organizationId, await image('png', 1280, 720))).asset.imageAssetId
      : undefined;
    const externalRef = `erasure-${randomUUID()}`;
    const created = await sceneOperations().create(
      org().organizationId,
      { key: randomUUID(), scope: 'POST /v1/scenes' },
      { prompt, externalRef, ...(sourceAssetId ? { sourceAssetId } : {}) },
    );
    const operationId = created.value.operationId;
    await run(operationId);
    expect(await suite.app.get(OperationsService).get(org().organizationId, operationId)).toMatchObject({ status: 'succeeded' });
    const sceneId = (await scenes().findByExternalRef(org().organizationId, externalRef))!.sceneId;
    return { sceneId, operationId };
  }

  const erasure = async (operationId: string) => db().getRepository(ProviderErasureEntity).findOneByOrFail({ operationId });
  const providerJob = async (operationId: string) =>
    (
      await db().query<{ provider_job: { id: string; state?: Record<string, unknown> } }[]>(
        `SELECT provider_job FROM operations WHERE id = $1`,
        [operationId],
      )
    )[0].provider_job;
  const purged = async (sceneId: string) =>
    (
      await db().query<{ purged_at: Date | null; prompt: string | null }[]>(`SELECT purged_at, prompt FROM scenes WHERE id = $1`, [sceneId])
    )[0];
  const purge = () => suite.app.get(ScenePurge).purgeDeleted();
  const remove = (sceneId: string) => scenes().delete(org().organizationId, sceneId);

  return { run, readyScene, erasure, providerJob, purged, purge, remove };
}

describe('deleting a scene deletes the World Labs worlds it made', () => {
  let marble: FakeWorldLabs;
  beforeAll(async () => {
    marble = await FakeWorldLabs.start({ jobDurationMs: 0 });
  });
  afterAll(() => marble?.close());
  const t = providerSuite(() => ({ GENERATOR: 'worldlabs', WORLDLABS_BASE_URL: marble.url, WORLDLABS_API_KEY: marble.apiKey }));

  it("deletes the scene's world and each edit's at the purge, records it, and reports the source image Marble cannot delete", async () => {
    const { sceneId, operationId } = await t.readyScene('a lighthouse on a cliff', { source: true });
    const edit = await t.suite.app.get(SceneOperationsService).requestEdit(t.org().organizationId, sceneId, 'make it night');
    await t.run(edit.operationId);
    const worlds = [(await t.providerJob(operationId)).state!.worldId, (await t.providerJob(edit.operationId)).state!.worldId] as string[];
    const mediaAssetId = (await t.providerJob(operationId)).state!.mediaAssetId as string;
    for (const w of worlds) expect(marble.hasWorld(w)).toBe(true);

    await t.remove(sceneId);
    const result = await t.purge();
    expect(result).toMatchObject({ scenes: 1, provider: { done: 2, failed: 0, retrying: 0 } });
    for (const w of worlds) expect(marble.hasWorld(w)).toBe(false);
    expect(marble.deletedWorlds).toEqual(expect.arrayContaining(worlds));
    // The media asset stays at Marble: it documents no delete. The record says so.
    expect(marble.mediaAssetIds()).toContain(mediaAssetId);
    expect(await t.erasure(operationId)).toMatchObject({
      status: 'done',
      attempts: 1,
      lastError: null,
      completedAt: t.clock.now(),
      objects: [
        { kind: 'world', id: worlds[0], outcome: 'deleted' },
        { kind: 'media_asset', id: mediaAssetId, outcome: 'kept' },
      ],
    });
    expect(await t.erasure(edit.operationId)).toMatchObject({
      status: 'done',
      objects: expect.arrayContaining([{ kind: 'world', id: worlds[1], outcome: 'deleted' }]),
    });
    // A second run has nothing left to ask.
    expect((await t.purge()).provider).toEqual({ done: 0, deleted: 0, kept: 0, retrying: 0, failed: 0 });
  });

  it('retries a failing provider with a doubling pause, then records the deletion; our own erasure never waits', async () => {
    const { sceneId, operationId } = await t.readyScene('a harbour in the fog');
    const world = (await t.providerJob(operationId)).state!.worldId as string;
    marble.deleteFailure = { status: 503, times: 2 };
    await t.remove(sceneId);

    const first = await t.purge();
    expect(first).toMatchObject({ scenes: 1, provider: { retrying: 1, done: 0 } });
    // Ours is done: prompt gone, tombstone purged. Marble still has the world.
    expect(await t.purged(sceneId)).toMatchObject({ prompt: null, purged_at: expect.any(Date) });
    expect(marble.hasWorld(world)).toBe(true);
    expect(await t.erasure(operationId)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'provider_unavailable' });
    const firstDue = (await t.erasure(operationId)).nextAttemptAt.getTime() - t.clock.now().getTime();
    expect(firstDue).toBe(MINUTE);

    // Not due yet: nothing is asked.
    expect((await t.purge()).provider.retrying).toBe(0);
    expect(await t.erasure(operationId)).toMatchObject({ attempts: 1 });

    t.clock.advance(MINUTE);
    expect((await t.purge()).provider.retrying).toBe(1);
    expect((await t.erasure(operationId)).nextAttemptAt.getTime() - t.clock.now().getTime()).toBe(2 * MINUTE);
    t.clock.advance(2 * MINUTE);
    expect((await t.purge()).provider).toMatchObject({ done: 1 });
    expect(marble.hasWorld(world)).toBe(false);
    expect(await t.erasure(operationId)).toMatchObject({ status: 'done', attempts: 3, lastError: null });
  });

  it('records a provider that keeps failing as failed after its attempts, about a day later', async () => {
    const { sceneId, operationId } = await t.readyScene('a desert at noon');
    marble.deleteFailure = { status: 500 };
    try {
      await t.remove(sceneId);
      const started = t.clock.now().getTime();
      for (let i = 0; i < PROVIDER_ERASURE_ATTEMPTS; i++) {
        await t.purge();
        t.clock.set((await t.erasure(operationId)).nextAttemptAt);
      }
      expect(await t.erasure(operationId)).toMatchObject({
        status: 'failed',
        attempts: PROVIDER_ERASURE_ATTEMPTS,
        lastError: 'provider_unavailable',
        objects: null,
      });
      const tried = (await t.erasure(operationId)).completedAt!.getTime() - started;
      expect(tried).toBeGreaterThan(12 * HOUR);
      expect(tried).toBeLessThan(36 * HOUR);
      // Given up: not asked again.
      t.clock.advance(7 * 24 * HOUR);
      expect((await t.purge()).provider).toMatchObject({ failed: 0, retrying: 0, done: 0 });
    } finally {
      marble.deleteFailure = null;
    }
  });

  it('waits for a world still being generated when the scene is deleted, then deletes it', async () => {
    marble.jobDurationMs = 60 * MINUTE;
    const externalRef = `erasure-${randomUUID()}`;
    const created = await t.suite.app
      .get(SceneOperationsService)
      .create(t.org().organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt: 'a castle at dawn', externalRef });
    const operationId = created.value.operationId;
    // Submitted, then rescheduled to poll: the world is being made.
    await expect(t.suite.app.get(SceneGenerationProcessor).generate({ operationId }, firstAttempt)).rejects.toBeInstanceOf(RescheduleJob);
    marble.jobDurationMs = 0;
    const job = await t.providerJob(operationId);
    const sceneId = (await t.suite.app.get(ScenesService).findByExternalRef(t.org().organizationId, externalRef))!.sceneId;
    await t.remove(sceneId);

    expect((await t.purge()).provider).toMatchObject({ retrying: 1 });
    expect(await t.erasure(operationId)).toMatchObject({ status: 'pending', lastError: 'provider_still_working' });
    marble.finish(job.id);
    t.clock.advance(MINUTE);
    expect((await t.purge()).provider).toMatchObject({ done: 1 });
    const { objects } = await t.erasure(operationId);
    expect(objects).toEqual([{ kind: 'world', id: expect.any(String), outcome: 'deleted' }]);
    expect(marble.hasWorld(objects![0].id)).toBe(false);
  });
});

describe('deleting a scene deletes the Meshy tasks it made', () => {
  let meshy: MeshyFake;
  beforeAll(async () => {
    meshy = await MeshyFake.start();
    meshy.pendingMs = 0;
    meshy.taskDurationMs = 1;
  });
  afterAll(() => meshy?.close());
  const t = providerSuite(() => ({ GENERATOR: 'meshy', MESHY_BASE_URL: meshy.url, MESHY_API_KEY: meshy.apiKey }));

  it('deletes the refine and the preview it was made from, retrying a failure', async () => {
    const { sceneId, operationId } = await t.readyScene('a porcelain teapot');
    const job = await t.providerJob(operationId);
    expect(job.state).toMatchObject({ phase: 'refine' });
    const tasks = [job.id, job.state!.previewId as string];
    for (const id of tasks) expect(meshy.task(id)).not.toBeNull();

    meshy.deleteFailure = { status: 429, times: 1 };
    await t.remove(sceneId);
    expect((await t.purge()).provider).toMatchObject({ retrying: 1 });
    expect(await t.erasure(operationId)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'provider_unavailable' });
    t.clock.advance(MINUTE);
    expect((await t.purge()).provider).toMatchObject({ done: 1, deleted: 2 });
    for (const id of tasks) expect(meshy.task(id)).toBeNull();
    expect(meshy.deleted).toEqual(expect.arrayContaining(tasks));
    expect(await t.erasure(operationId)).toMatchObject({
      status: 'done',
      attempts: 2,
      objects: [
        { kind: 'task', id: tasks[0], outcome: 'deleted' },
        { kind: 'task', id: tasks[1], outcome: 'deleted' },
      ],
    });
  });
});

describe('deleting a scene deletes the generation at a protocol-v2 provider', () => {
  let provider: FakeGenerationProvider;
  beforeAll(async () => {
    provider = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });
  afterAll(() => provider?.close());
  const t = providerSuite(() => ({ GENERATOR: 'http', GENERATION_PROVIDER_URL: provider.url }));

  it('deletes the generation; a provider without the optional delete is recorded as keeping it', async () => {
    const a = await t.readyScene('a windmill by a canal');
    const jobA = (await t.providerJob(a.operationId)).id;
    await t.remove(a.sceneId);
    expect((await t.purge()).provider).toMatchObject({ done: 1, deleted: 1 });
    expect(provider.deleted).toContain(jobA);
    expect(provider.jobs.has(jobA)).toBe(false);

    const b = await t.readyScene('a tram in the snow');
    const jobB = (await t.providerJob(b.operationId)).id;
    provider.deleteBehaviour = 'unsupported';
    await t.remove(b.sceneId);
    expect((await t.purge()).provider).toMatchObject({ done: 1, kept: 1 });
    expect(await t.erasure(b.operationId)).toMatchObject({ status: 'done', objects: [{ kind: 'generation', id: jobB, outcome: 'kept' }] });
  });
});
