import { AppConfig, BlobStore, createRedis, IdempotentRequests, ManualClock, QueueService } from '@app/core';
import { ImageAssetsService, ImageAssetsSweeper } from '@app/image-assets';
import { ScenesService } from '@app/scenes';
import { OperationsReconciler, OperationsService, SCENES_QUEUE, OperationsWorkerModule, SceneOperationsService } from '@app/operations';
import { OperationsRepository } from '@app/operations/operations.repository';
import { Job, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { pollUntil } from '../support/poll';
import { setUpServices } from '../support/services';
import { stored } from '../support/stored';

const HOUR = 60 * 60 * 1000;
const GRACE_MS = 10_000;

/**
 * The worker's maintenance on a real database and the real Redis, called directly: the reconciler
 * (no accepted operation is lost), the expiry sweep of unattached image assets, and the purge of
 * expired idempotency records. The clock is moved by hand; the reconciler's own timer is set far
 * out so only the calls below run it.
 */
describe('maintenance on a real database', () => {
  const clock = new ManualClock(Date.parse('2026-06-01T08:00:00.000Z'));
  const suite = setUpServices({
    imports: [OperationsWorkerModule],
    clock,
    config: { RECONCILE_INTERVAL_MS: '600000', RECONCILE_GRACE_MS: String(GRACE_MS) },
  });
  let org: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const operations = () => suite.app.get(OperationsService);
  const reconciler = () => suite.app.get(OperationsReconciler);
  const queue = () => suite.app.get(QueueService).queue(SCENES_QUEUE);
  const db = () => suite.app.get(DataSource);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });

  /** A created scene's operation, once its job is in Redis (the enqueue after commit is asynchronous). */
  async function accepted(prompt: string): Promise<string> {
    const created = await sceneOperations().create(org.organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt });
    const id = created.value.operationId;
    await pollUntil(
      () => queue().getJob(id),
      (job) => job !== undefined,
      { what: `job ${id}` },
    );
    return id;
  }

  describe(OperationsReconciler.name, () => {
    it('enqueues again an operation whose job was lost, once it has been quiet for the grace period', async () => {
      const id = await accepted('A lost enqueue');
      await queue().remove(id);
      clock.advance(GRACE_MS - 1000);
      expect(await reconciler().reconcile()).toBe(0);
      expect(await queue().getJob(id)).toBeUndefined();

      clock.advance(2000);
      expect(await reconciler().reconcile()).toBe(1);
      const job = await queue().getJob(id);
      expect(job).toMatchObject({ name: 'scene.generate', data: { operationId: id } });
      // Touched: the next pass leaves it alone until another grace period passes.
      expect(await reconciler().reconcile()).toBe(0);
      expect(await operations().get(org.organizationId, id)).toMatchObject({ status: 'processing' });
    });

    it('leaves an operation whose job is waiting, and settles one whose job ended without recording its end', async () => {
      const waiting = await accepted('A job still waiting');
      const ended = await accepted('A job that ended silently');
      // Complete `ended`'s job by hand, without its handler: what a crash between a handler's
      // return and its database write leaves behind.
      const config = suite.app.get(AppConfig);
      const connection = createRedis(config, 'bullmq', 'test-manual-worker');
      const worker = new Worker(SCENES_QUEUE, null, { connection, prefix: config.queuePrefix, autorun: false });
      try {
        const token = randomUUID();
        let job: Job | undefined;
        while ((job = (await worker.getNextJob(token)) as Job | undefined) && job.id !== ended) {
          await job.moveToDelayed(Date.now() + HOUR, token);
        }
        expect(job?.id).toBe(ended);
        await job!.moveToCompleted('done', token, false);
      } finally {
        await worker.close();
        connection.disconnect();
      }

      clock.advance(GRACE_MS + 1000);
      expect(await reconciler().reconcile()).toBe(0);
      expect(await operations().get(org.organizationId, waiting)).toMatchObject({ status: 'processing' });
      expect(await operations().get(org.organizationId, ended)).toMatchObject({
        status: 'failed',
        error: { code: 'generation_failed', retryable: true },
      });
    });

    it('one pass at a time: a second replica holding the lock makes this one skip', async () => {
      const id = await accepted('Two reconcilers');
      await queue().remove(id);
      clock.advance(GRACE_MS + 1000);
      const runner = db().createQueryRunner();
      await runner.connect();
      try {
        // The reconciler's advisory lock, held by "another replica".
        const held = (await runner.query(`SELECT pg_try_advisory_lock(731903118) AS locked`)) as { locked: boolean }[];
        expect(held[0].locked).toBe(true);
        expect(await reconciler().reconcile()).toBe(0);
        expect(await queue().getJob(id)).toBeUndefined();
        await runner.query(`SELECT pg_advisory_unlock(731903118)`);
      } finally {
        await runner.release();
      }
      expect(await reconciler().reconcile()).toBe(1);
      expect(await queue().getJob(id)).toBeDefined();
    });
  });

  describe('the reconciler lock behind PgBouncer (transaction mode)', () => {
    it('is held by an open transaction while a pass runs and gone after it: no session state', async () => {
      const locks = () =>
        db().query(
          `SELECT l.granted, a.xact_start IS NOT NULL AS in_transaction
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.objid = 731903118 AND a.datname = current_database()`,
        ) as Promise<{ granted: boolean; in_transaction: boolean }[]>;
      const during = await suite.app.get(OperationsRepository).whileHoldingLock(731903118, () => locks());
      expect(during).toEqual([{ granted: true, in_transaction: true }]);
      expect(await locks()).toEqual([]);
    });
  });

  describe(ImageAssetsSweeper.name, () => {
    it('deletes unattached assets (and their bytes) 24 hours after upload, and keeps attached ones', async () => {
      const assets = suite.app.get(ImageAssetsService);
      const blobs = suite.app.get(BlobStore);
      const { asset: loose } = await assets.upload(org.organizationId, await image('png', 1280, 720));
      const { asset: used } = await assets.upload(org.organizationId, await image('jpeg', 1280, 720));
      await sceneOperations().create(
        org.organizationId,
        { key: randomUUID(), scope: 'POST /v1/scenes' },
        { prompt: 'From a photo', sourceAssetId: used.imageAssetId },
      );
      const looseBytes = await assets.readBytes(loose.imageAssetId);
      expect(looseBytes).not.toBeNull();
      const blobKeyOf = async (id: string) => (await stored(db()).imageAsset(id))?.blobKey;
      const looseKey = (await blobKeyOf(loose.imageAssetId))!;

      clock.advance(24 * HOUR - 1000);
      expect(await suite.app.get(ImageAssetsSweeper).purgeExpired()).toEqual({ deleted: 0 });
      clock.advance(2000);
      expect(await suite.app.get(ImageAssetsSweeper).purgeExpired()).toEqual({ deleted: 1 });

      expect(await assets.get(org.organizationId, loose.imageAssetId)).toBeNull();
      expect(await blobKeyOf(loose.imageAssetId)).toBeUndefined();
      expect(await blobs.get(looseKey)).toBeNull();
      expect(await assets.get(org.organizationId, used.imageAssetId)).toMatchObject({ status: 'attached', expiresAt: null });
      expect(await assets.readBytes(used.imageAssetId)).not.toBeNull();
    });
  });

  describe(IdempotentRequests.name, () => {
    it('purges records past the 24-hour window and keeps younger ones', async () => {
      const count = async () => Number(((await db().query(`SELECT count(*) AS n FROM idempotency_keys`)) as { n: string }[])[0].n);
      const before = await count();
      await sceneOperations().create(
        org.organizationId,
        { key: randomUUID(), scope: 'POST /v1/scenes' },
        { prompt: 'Remembered for a day' },
      );
      expect(await count()).toBe(before + 1);
      clock.advance(12 * HOUR);
      const young = randomUUID();
      await sceneOperations().create(org.organizationId, { key: young, scope: 'POST /v1/scenes' }, { prompt: 'Younger' });

      clock.advance(12 * HOUR + 1000);
      const { deleted } = await suite.app.get(IdempotentRequests).purgeExpired();
      expect(deleted).toBeGreaterThanOrEqual(1);
      const left = (await db().query(`SELECT key FROM idempotency_keys`)) as { key: string }[];
      expect(left.map((r) => r.key)).toEqual([young]);
    });
  });
});
