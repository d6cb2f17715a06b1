import { BlobStore, MAINTENANCE_QUEUE, ManualClock, QueueService, runInTransaction } from '@app/core';
import { ImageAssetJob, ImageAssetsService, ImageAssetsSweeper } from '@app/image-assets';
import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { startWorker } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

const DAY = 24 * 3600 * 1000;

describe('image asset expiry', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:00.000Z'));
  const suite = setUpSuite({ api: { clock }, worker: { clock } });

  const upload = async (width = 1280, height = 720) => {
    const res = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', await image('png', width, height), { filename: 'a.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    return res.body as { imageAssetId: string; createdAt: string; expiresAt: string };
  };

  const get = (id: string) => suite.api.http().get(`/v1/image-assets/${id}`).set(suite.org.auth);
  const db = () => suite.api.app.get(DataSource);
  const blobExists = async (id: string) => (await suite.api.app.get(BlobStore).get(`image-assets/${id}`)) !== null;
  const rowExists = (id: string) => stored(db()).imageAssetExists(id);

  it('expires exactly 24 hours after upload, decided at read time', async () => {
    const asset = await upload();
    expect(asset.createdAt).toBe(clock.now().toISOString());
    expect(Date.parse(asset.expiresAt)).toBe(clock.now().getTime() + DAY);

    clock.advance(DAY - 1);
    expect((await get(asset.imageAssetId)).status).toBe(200);
    clock.advance(1);
    expectProblem(await get(asset.imageAssetId), 404, 'not_found');
    // Nothing swept it: the row is still there, yet invisible.
    expect(await rowExists(asset.imageAssetId)).toBe(true);
  });

  it('an attached asset is kept, with status attached and expiresAt null', async () => {
    const asset = await upload();
    await runInTransaction(db(), (tx) =>
      suite.api.app.get(ImageAssetsService).attachForScene(tx, suite.org.organizationId, asset.imageAssetId, clock.now()),
    );
    clock.advance(3 * DAY);
    const res = await get(asset.imageAssetId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'attached', expiresAt: null });
  });

  it('an expired asset can no longer be attached', async () => {
    const asset = await upload();
    clock.advance(DAY);
    await expect(
      runInTransaction(db(), (tx) =>
        suite.api.app.get(ImageAssetsService).attachForScene(tx, suite.org.organizationId, asset.imageAssetId, clock.now()),
      ),
    ).rejects.toMatchObject({ code: 'source_asset_not_found' });
  });

  it('the sweeper job deletes expired assets and their bytes, and leaves attached and live ones alone', async () => {
    const expired = await upload();
    const attached = await upload();
    await runInTransaction(db(), (tx) =>
      suite.api.app.get(ImageAssetsService).attachForScene(tx, suite.org.organizationId, attached.imageAssetId, clock.now()),
    );
    clock.advance(DAY - 60_000);
    const live = await upload();
    clock.advance(60_000);

    for (const a of [expired, attached, live]) expect(await blobExists(a.imageAssetId)).toBe(true);
    await suite.worker.get(QueueService).add(ImageAssetJob.PurgeExpired, {});
    await pollUntil(
      () => rowExists(expired.imageAssetId),
      (exists) => !exists,
      { what: 'the sweeper' },
    );

    expect(await blobExists(expired.imageAssetId)).toBe(false);
    expect(await rowExists(attached.imageAssetId)).toBe(true);
    expect(await blobExists(attached.imageAssetId)).toBe(true);
    expect(await rowExists(live.imageAssetId)).toBe(true);
    expect(await blobExists(live.imageAssetId)).toBe(true);
    expect((await get(live.imageAssetId)).status).toBe(200);
  });

  it('two replicas sweeping at once delete every expired asset exactly once', async () => {
    const second = await startWorker(suite.env, { clock });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await upload(64, 64)).imageAssetId);
      clock.advance(DAY);
      const sweeper = (app: INestApplicationContext) => app.get(ImageAssetsSweeper);
      const [a, b] = await Promise.all([sweeper(suite.worker).purgeExpired(), sweeper(second).purgeExpired()]);
      expect(a.deleted + b.deleted).toBeGreaterThanOrEqual(12);
      for (const id of ids) {
        expect(await rowExists(id)).toBe(false);
        expect(await blobExists(id)).toBe(false);
      }
    } finally {
      await second.close();
    }
  });

  it('the worker schedules the sweep as a repeatable job', async () => {
    const schedulers = await suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE).getJobSchedulers();
    expect(schedulers.map((s) => s.key ?? s.name)).toContain(ImageAssetJob.PurgeExpired.name);
  });
});
