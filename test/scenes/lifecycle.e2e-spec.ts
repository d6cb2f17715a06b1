import { ScenesService } from '@app/scenes';
import { ScenePurge, SceneOperationsService } from '@app/operations';
import { DataSource } from 'typeorm';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

describe('scene lifecycle: create → poll → lookup → edit → delete', () => {
  const suite = setUpSuite({ worker: {} });

  it('runs the whole partner flow', async () => {
    const created = await createScene(suite.api, suite.org, {
      prompt: 'A foggy pine forest with a lake at sunset',
      externalRef: 'lifecycle-1',
    });
    expect(created.status).toBe(202);
    const { operationId } = created.body;

    // Polling while processing carries Retry-After and no-store.
    const first = await suite.api.http().get(`/v1/operations/${operationId}`).set(suite.org.auth);
    expect(first.headers['cache-control']).toBe('no-store');
    if (first.body.status === 'processing') {
      expect(first.body).toEqual({
        operationId,
        kind: 'scene.create',
        externalRef: 'lifecycle-1',
        status: 'processing',
        progress: expect.any(Number),
        stage: expect.stringMatching(/^(queued|generating|downloading|storing)$/),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const retryAfter = Number(first.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(10);
    }

    const done = await awaitOperation(suite.api, suite.org, operationId);
    expect(done.status).toBe(200);
    expect(done.headers['cache-control']).toBe('no-store');
    expect(done.headers['retry-after']).toBeUndefined();
    expect(done.body).toEqual({
      operationId,
      kind: 'scene.create',
      externalRef: 'lifecycle-1',
      status: 'succeeded',
      sceneId: expect.stringMatching(/^scn_[0-9A-HJKMNP-TV-Z]{26}$/),
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    const sceneId = done.body.sceneId as string;

    const scene = await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth);
    expect(scene.status).toBe(200);
    expect(scene.body).toEqual({
      sceneId,
      externalRef: 'lifecycle-1',
      status: 'ready',
      version: 1,
      operationId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(scene.body)).not.toMatch(/glb|spec|prompt/i);

    const found = await suite.api.http().get('/v1/scenes').query({ externalRef: 'lifecycle-1' }).set(suite.org.auth);
    expect(found.status).toBe(200);
    expect(found.body).toEqual(scene.body);

    // An edit makes version 2, visible through the partner API.
    const edit = await suite.api.app
      .get(SceneOperationsService)
      .requestEdit(suite.org.organizationId, sceneId, 'Make it night and add fog');
    const edited = await awaitOperation(suite.api, suite.org, edit.operationId);
    expect(edited.body).toMatchObject({ status: 'succeeded', sceneId, version: 2 });
    expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).body).toMatchObject({ status: 'ready', version: 2 });
    const edit2 = await suite.api.app.get(SceneOperationsService).requestEdit(suite.org.organizationId, sceneId, 'add more trees');
    expect((await awaitOperation(suite.api, suite.org, edit2.operationId)).body).toMatchObject({ status: 'succeeded', version: 3 });

    // Files exist per version.
    const files = await suite.api.app.get(ScenesService);
    const v1 = await files.readSceneFile(sceneId, 1);
    const v3 = await files.readSceneFile(sceneId, 3);
    expect(v1?.subarray(0, 4).toString('latin1')).toBe('glTF');
    expect(v3?.subarray(0, 4).toString('latin1')).toBe('glTF');
    expect(v1?.equals(v3!)).toBe(false);

    // Delete: gone from every endpoint at once, idempotently.
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    expectProblem(await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth), 404, 'not_found');
    expectProblem(await suite.api.http().get('/v1/scenes').query({ externalRef: 'lifecycle-1' }).set(suite.org.auth), 404, 'not_found');
    expectProblem(await suite.api.http().get(`/v1/operations/${operationId}`).set(suite.org.auth), 404, 'not_found');
    expectProblem(await suite.api.http().get(`/v1/operations/${edit.operationId}`).set(suite.org.auth), 404, 'not_found');
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    // Its files go with the purge that follows (every 5 minutes on the worker; run here at once).
    await suite.worker.get(ScenePurge).purgeDeleted();
    expect(await files.readSceneFile(sceneId, 1)).toBeNull();
    const blobs = await suite.api.app.get(DataSource).query(`SELECT count(*) AS n FROM blobs WHERE key LIKE $1`, [`scenes/${sceneId}/%`]);
    expect(Number(blobs[0].n)).toBe(0);
  });

  it('generates from a source image, identically for the same inputs', async () => {
    const assetId = await uploadImage(suite.api, suite.org, 1920, 1080);
    const a = await createScene(suite.api, suite.org, { prompt: 'Coastal town from my photo', sourceAssetId: assetId });
    const b = await createScene(suite.api, suite.org, { prompt: 'Coastal town from my photo', sourceAssetId: assetId });
    const [da, db] = [
      await awaitOperation(suite.api, suite.org, a.body.operationId),
      await awaitOperation(suite.api, suite.org, b.body.operationId),
    ];
    expect(da.body.status).toBe('succeeded');
    expect(db.body.status).toBe('succeeded');
    const scenes = suite.api.app.get(ScenesService);
    const [fa, fb] = [await scenes.readSceneFile(da.body.sceneId, 1), await scenes.readSceneFile(db.body.sceneId, 1)];
    expect(fa!.length).toBeGreaterThan(1000);
    expect(fa!.equals(fb!)).toBe(true);
  });

  it('GET /v1/scenes?externalRef= needs the parameter', async () => {
    expectProblem(await suite.api.http().get('/v1/scenes').set(suite.org.auth), 422, 'validation_failed');
    expectProblem(await suite.api.http().get('/v1/scenes?externalRef=').set(suite.org.auth), 422, 'validation_failed');
    expectProblem(await suite.api.http().get('/v1/scenes?externalRef=a&externalRef=b').set(suite.org.auth), 422, 'validation_failed');
    expectProblem(await suite.api.http().get('/v1/scenes?externalRef=a%00b').set(suite.org.auth), 422, 'validation_failed');
    expectProblem(
      await suite.api
        .http()
        .get(`/v1/scenes?externalRef=${'r'.repeat(201)}`)
        .set(suite.org.auth),
      422,
      'validation_failed',
    );
    expectProblem(await suite.api.http().get('/v1/scenes?externalRef=nothing-has-this').set(suite.org.auth), 404, 'not_found');
  });

  it('an edit of a scene that is not ready yet is refused', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'x' });
    const sceneId = (await awaitOperation(suite.api, suite.org, created.body.operationId)).body.sceneId;
    // Back to the state of a scene whose first version is still being generated.
    await stored(suite.api.app.get(DataSource)).setSceneState(sceneId, { status: 'generating', currentVersion: null });
    await expect(suite.api.app.get(SceneOperationsService).requestEdit(suite.org.organizationId, sceneId, 'night')).rejects.toMatchObject({
      code: 'scene_not_ready',
    });
  });

  it('DELETE answers 204 for unknown and malformed-looking but valid ids, 400 for invalid ones', async () => {
    expect((await suite.api.http().delete('/v1/scenes/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth)).status).toBe(204);
    expectProblem(await suite.api.http().delete('/v1/scenes/scn_123').set(suite.org.auth), 400, 'invalid_id');
    expectProblem(await suite.api.http().delete('/v1/scenes/op_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(suite.org.auth), 400, 'invalid_id');
  });
});
