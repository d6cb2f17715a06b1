import type { Response } from 'supertest';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { setUpSuite } from '../support/suite';

/**
 * For every route that takes an id, another organization's id must get exactly the answer an
 * unknown id gets: same status, same body (but the request id), same headers.
 */
describe("existence hiding: another organization's ids look unknown", () => {
  const suite = setUpSuite({ worker: {}, org: false });
  let owner: TestOrganization;
  let stranger: TestOrganization;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    owner = await createOrganization(suite.api.app);
    stranger = await createOrganization(suite.api.app);
    ids.imageAsset = await uploadImage(suite.api, owner);
    const created = await createScene(suite.api, owner, { prompt: 'secret scene', externalRef: 'hidden-ref' });
    ids.operation = created.body.operationId;
    ids.scene = (await awaitOperation(suite.api, owner, ids.operation)).body.sceneId;
  });

  const unknown = {
    imageAsset: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    operation: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    scene: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  };

  const routes: Array<[string, (id: (k: keyof typeof unknown) => string) => Promise<Response>]> = [
    [
      'GET /v1/image-assets/{id}',
      (id) =>
        suite.api
          .http()
          .get(`/v1/image-assets/${id('imageAsset')}`)
          .set(stranger.auth) as never,
    ],
    [
      'GET /v1/operations/{id}',
      (id) =>
        suite.api
          .http()
          .get(`/v1/operations/${id('operation')}`)
          .set(stranger.auth) as never,
    ],
    [
      'POST /v1/operations/{id}:cancel',
      (id) =>
        suite.api
          .http()
          .post(`/v1/operations/${id('operation')}:cancel`)
          .set(stranger.auth) as never,
    ],
    [
      'GET /v1/scenes/{id}',
      (id) =>
        suite.api
          .http()
          .get(`/v1/scenes/${id('scene')}`)
          .set(stranger.auth) as never,
    ],
    [
      'DELETE /v1/scenes/{id}',
      (id) =>
        suite.api
          .http()
          .delete(`/v1/scenes/${id('scene')}`)
          .set(stranger.auth) as never,
    ],
    [
      'GET /v1/scenes?externalRef=',
      (id) =>
        suite.api
          .http()
          .get('/v1/scenes')
          .query({ externalRef: id('scene') === ids.scene ? 'hidden-ref' : 'never-used-ref' })
          .set(stranger.auth) as never,
    ],
    [
      'POST /v1/scenes with sourceAssetId',
      (id) => createScene(suite.api, stranger, { prompt: 'borrow', sourceAssetId: id('imageAsset') }) as never,
    ],
  ];

  const comparable = (r: Response) => ({
    status: r.status,
    body: typeof r.body === 'object' && r.body ? { ...r.body, requestId: undefined } : r.text,
    headers: Object.keys(r.headers)
      .filter((h) => !['date', 'x-request-id', 'content-length', 'ratelimit-remaining', 'ratelimit-reset', 'etag'].includes(h))
      .sort(),
  });

  it.each(routes)('%s', async (_, call) => {
    const foreign = await call((k) => ids[k]);
    const missing = await call((k) => unknown[k]);
    expect(comparable(foreign)).toEqual(comparable(missing));
    expect(foreign.status === 404 || foreign.status === 204 || foreign.status === 422).toBe(true);
  });

  it("the owner still sees everything after the stranger's attempts (a foreign DELETE or cancel did nothing)", async () => {
    expect((await suite.api.http().get(`/v1/scenes/${ids.scene}`).set(owner.auth)).status).toBe(200);
    const op = await suite.api.http().get(`/v1/operations/${ids.operation}`).set(owner.auth);
    expect(op.status).toBe(200);
    expect(op.body.status).toBe('succeeded');
    expect((await suite.api.http().get(`/v1/image-assets/${ids.imageAsset}`).set(owner.auth)).status).toBe(200);
  });
});
