import type { Response } from 'supertest';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { createEmbedSession } from '../factories/embed.factory';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
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
    // Nothing listens on port 9: deliveries fail, but they exist, which is what the routes need.
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(owner.auth)
      .send({ url: 'http://localhost:9/hooks', events: ['operation.succeeded'] });
    ids.webhookEndpoint = endpoint.body.webhookEndpointId;
    const created = await createScene(suite.api, owner, { prompt: 'secret scene', externalRef: 'hidden-ref' });
    ids.operation = created.body.operationId;
    ids.scene = (await awaitOperation(suite.api, owner, ids.operation)).body.sceneId;
    const session = await createEmbedSession(suite.api, owner, { sceneId: ids.scene, origin: 'http://localhost:5173', mode: 'edit' });
    ids.embedSession = session.body.embedSessionId;
    const deliveries = await pollUntil(
      () => suite.api.http().get(`/v1/webhook-endpoints/${ids.webhookEndpoint}/deliveries`).set(owner.auth),
      (r) => r.body.items?.length === 1,
      { what: 'the operation.succeeded delivery' },
    );
    ids.message = deliveries.body.items[0].messageId;
  });

  const unknown = {
    imageAsset: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    operation: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    scene: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    embedSession: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    webhookEndpoint: 'whe_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    message: 'msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  };
  const as = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const r = suite.api.http()[method](path).set(stranger.auth);
    return (body ? r.send(body) : r) as never as Promise<Response>;
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
    [
      'POST /v1/embed-sessions with sceneId',
      (id) => as('post', '/v1/embed-sessions', { sceneId: id('scene'), origin: 'http://localhost:5173', mode: 'edit' }),
    ],
    ['DELETE /v1/embed-sessions/{id}', (id) => as('delete', `/v1/embed-sessions/${id('embedSession')}`)],
    [
      'POST /v1/embed-sessions/{id}:extend',
      (id) => as('post', `/v1/embed-sessions/${id('embedSession')}:extend`, { expiresInSeconds: 600 }),
    ],
    ['GET /v1/webhook-endpoints/{id}', (id) => as('get', `/v1/webhook-endpoints/${id('webhookEndpoint')}`)],
    ['PATCH /v1/webhook-endpoints/{id}', (id) => as('patch', `/v1/webhook-endpoints/${id('webhookEndpoint')}`, { enabled: false })],
    ['DELETE /v1/webhook-endpoints/{id}', (id) => as('delete', `/v1/webhook-endpoints/${id('webhookEndpoint')}`)],
    [
      'POST /v1/webhook-endpoints/{id}:rotate-secret',
      (id) => as('post', `/v1/webhook-endpoints/${id('webhookEndpoint')}:rotate-secret`, {}),
    ],
    ['GET /v1/webhook-endpoints/{id}/deliveries', (id) => as('get', `/v1/webhook-endpoints/${id('webhookEndpoint')}/deliveries`)],
    [
      'POST /v1/webhook-endpoints/{id}/deliveries/{messageId}:replay',
      (id) => as('post', `/v1/webhook-endpoints/${id('webhookEndpoint')}/deliveries/${id('message')}:replay`),
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

  it("the owner still sees everything after the stranger's attempts (a foreign DELETE, cancel, PATCH or extend did nothing)", async () => {
    expect((await suite.api.http().get(`/v1/scenes/${ids.scene}`).set(owner.auth)).status).toBe(200);
    const op = await suite.api.http().get(`/v1/operations/${ids.operation}`).set(owner.auth);
    expect(op.status).toBe(200);
    expect(op.body.status).toBe('succeeded');
    expect((await suite.api.http().get(`/v1/image-assets/${ids.imageAsset}`).set(owner.auth)).status).toBe(200);
    const endpoint = await suite.api.http().get(`/v1/webhook-endpoints/${ids.webhookEndpoint}`).set(owner.auth);
    expect(endpoint.body).toMatchObject({ enabled: true, disabledReason: null });
    // The stranger's :extend did not extend, and its DELETE did not revoke: the owner can still extend.
    const extended = await suite.api
      .http()
      .post(`/v1/embed-sessions/${ids.embedSession}:extend`)
      .set(owner.auth)
      .send({ expiresInSeconds: 600 });
    expect(extended.status).toBe(200);
  });
});
