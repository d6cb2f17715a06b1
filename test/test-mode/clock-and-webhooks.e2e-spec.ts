import { SceneStudioClient, testPrompt } from '@scene-studio/client';
import type { Response } from 'supertest';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

const ORIGIN = 'http://localhost:5173';
const LIVE_ORIGIN = 'https://app.acme.example';
const UNKNOWN = { es: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE', img: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE', whe: 'whe_01JD3Z8Q4W6K2M9T5X7B1C0VHE' };

/** A 404's body without its request id: what must not tell an unknown id from another organization's. */
const hidden = (r: Response) => ({ status: r.status, body: { ...r.body, requestId: undefined } });

describe('test mode: the test clock and webhook test sends, for test organizations only', () => {
  const suite = setUpSuite({
    studio: {},
    worker: { config: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1500' } },
    org: { test: true },
  });
  let receiver: WebhookReceiver;
  let live: TestOrganization;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    live = await createOrganization(suite.api.app, { test: false, origins: [LIVE_ORIGIN] });
  });
  afterAll(() => receiver?.close());
  beforeEach(() => {
    receiver.answer = () => 204;
  });

  const post = (path: string, org: TestOrganization) => suite.api.http().post(path).set(org.auth);

  // A path of its own per endpoint: one organization may not have two endpoints on one URL with
  // an event in common (409 webhook_endpoint_conflict).
  let endpoints = 0;
  const endpointUrl = () => `${receiver.url}/${++endpoints}`;

  async function endpoint(org: TestOrganization, events = ['embed_session.ended']): Promise<{ id: string; secret: string }> {
    const res = await suite.api.http().post('/v1/webhook-endpoints').set(org.auth).send({ url: endpointUrl(), events });
    expect(res.status).toBe(201);
    return { id: res.body.webhookEndpointId, secret: res.body.secret };
  }

  describe('POST /v1/embed-sessions/{id}:expire', () => {
    it('ends the session now: the open studio hears session.ended (expired), the page is the ended page, the webhook says expired once', async () => {
      const org = await createOrganization(suite.api.app, { test: true });
      const hook = await endpoint(org);
      const sceneId = await readyScene(suite.api, org);
      const session = (await createEmbedSession(suite.api, org, { sceneId, origin: ORIGIN, mode: 'edit' })).body;
      const bearer = `Bearer ${parseEmbedUrl(session.url).secret}`;
      const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, { Authorization: bearer });
      try {
        await stream.next('scene.status');
        const before = Date.now();
        const res = await post(`/v1/embed-sessions/${session.embedSessionId}:expire`, org);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ embedSessionId: session.embedSessionId, expiresAt: expect.any(String) });
        expect(Math.abs(Date.parse(res.body.expiresAt) - before)).toBeLessThan(5000);
        expect((await stream.next('session.ended', 3000)).data).toEqual({ reason: 'expired' });
      } finally {
        stream.close();
      }
      const page = await suite.studio.http().get(`/embed/${session.embedSessionId}`);
      expect(page.text).toContain('This session has ended');
      expect(page.headers['content-security-policy']).toMatch(/^frame-ancestors 'none'/);
      const api = await suite.studio.http().get('/studio-api/v1/session').set({ Authorization: bearer });
      expectProblem(api, 401, 'session_ended');
      expect(api.body.reason).toBe('expired');

      const [event] = await pollUntil(
        () => Promise.resolve(receiver.verified(hook.secret)),
        (v) => v.length >= 1,
        { what: 'the embed_session.ended delivery' },
      );
      expect(event).toMatchObject({
        type: 'embed_session.ended',
        data: { embedSessionId: session.embedSessionId, sceneId, reason: 'expired' },
      });
      // Ended now: a second expire, an extension, and the expiry sweep find nothing more to say.
      expectProblem(await post(`/v1/embed-sessions/${session.embedSessionId}:expire`, org), 404, 'not_found');
      const extended = await suite.api
        .http()
        .post(`/v1/embed-sessions/${session.embedSessionId}:extend`)
        .set(org.auth)
        .send({ expiresInSeconds: 600 });
      expectProblem(extended, 404, 'not_found');
      const deliveries = await suite.api.http().get(`/v1/webhook-endpoints/${hook.id}/deliveries`).set(org.auth);
      expect(deliveries.body.items).toHaveLength(1);
    });

    it("hides another organization's session exactly like an unknown one, and refuses malformed ids", async () => {
      const other = await createOrganization(suite.api.app, { test: true });
      const sceneId = await readyScene(suite.api, other);
      const theirs = (await createEmbedSession(suite.api, other, { sceneId, origin: ORIGIN, mode: 'perform' })).body.embedSessionId;
      const foreign = await post(`/v1/embed-sessions/${theirs}:expire`, suite.org);
      const unknown = await post(`/v1/embed-sessions/${UNKNOWN.es}:expire`, suite.org);
      expectProblem(foreign, 404, 'not_found');
      expect(hidden(foreign)).toEqual(hidden(unknown));
      expectProblem(await post('/v1/embed-sessions/es_nope:expire', suite.org), 400, 'invalid_id');
      // Still active for its own organization.
      expect((await post(`/v1/embed-sessions/${theirs}:expire`, other)).status).toBe(200);
    });
  });

  describe('POST /v1/image-assets/{id}:expire', () => {
    it('expires an unattached asset now: GET is 404 and it can no longer be a scene source', async () => {
      const assetId = await uploadImage(suite.api, suite.org);
      const res = await post(`/v1/image-assets/${assetId}:expire`, suite.org);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ imageAssetId: assetId, expiresAt: expect.any(String) });
      expectProblem(await suite.api.http().get(`/v1/image-assets/${assetId}`).set(suite.org.auth), 404, 'not_found');
      const scene = await createScene(suite.api, suite.org, { prompt: 'from an expired image', sourceAssetId: assetId });
      expectProblem(scene, 422, 'source_asset_not_found');
      expectProblem(await post(`/v1/image-assets/${assetId}:expire`, suite.org), 404, 'not_found');
    });

    it("never expires an attached asset, and hides another organization's like an unknown one", async () => {
      const attached = await uploadImage(suite.api, suite.org);
      const scene = await createScene(suite.api, suite.org, { prompt: 'test:succeed kept source', sourceAssetId: attached });
      await awaitOperation(suite.api, suite.org, scene.body.operationId);
      expectProblem(await post(`/v1/image-assets/${attached}:expire`, suite.org), 404, 'not_found');
      expect((await suite.api.http().get(`/v1/image-assets/${attached}`).set(suite.org.auth)).body.status).toBe('attached');

      const other = await createOrganization(suite.api.app, { test: true });
      const theirs = await uploadImage(suite.api, other);
      const foreign = await post(`/v1/image-assets/${theirs}:expire`, suite.org);
      expect(hidden(foreign)).toEqual(hidden(await post(`/v1/image-assets/${UNKNOWN.img}:expire`, suite.org)));
      expect((await suite.api.http().get(`/v1/image-assets/${theirs}`).set(other.auth)).status).toBe(200);
    });
  });

  describe('POST /v1/webhook-endpoints/{id}:test', () => {
    it("sends a signed webhook.test event now and answers with the receiver's status; nothing is recorded", async () => {
      const hook = await endpoint(suite.org, ['operation.succeeded']);
      const res = await post(`/v1/webhook-endpoints/${hook.id}:test`, suite.org);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        messageId: expect.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/),
        type: 'webhook.test',
        delivered: true,
        attempt: { attemptedAt: expect.any(String), statusCode: 204, error: null, durationMs: expect.any(Number) },
      });
      // Answered only after the receiver had it: no wait needed.
      const event = receiver.verified(hook.secret).find((e) => e.id === res.body.messageId);
      expect(event).toEqual({
        id: res.body.messageId,
        type: 'webhook.test',
        timestamp: expect.any(String),
        data: { webhookEndpointId: hook.id },
      });
      const deliveries = await suite.api.http().get(`/v1/webhook-endpoints/${hook.id}/deliveries`).set(suite.org.auth);
      expect(deliveries.body.items).toEqual([]);
    });

    it("reports a failing receiver's status, and a receiver that is gone, in the delivery log's words", async () => {
      const hook = await endpoint(suite.org, ['operation.succeeded']);
      receiver.answer = () => 503;
      const failing = await post(`/v1/webhook-endpoints/${hook.id}:test`, suite.org);
      expect(failing.body).toMatchObject({ delivered: false, attempt: { statusCode: 503, error: 'http_status' } });

      const gone = await WebhookReceiver.start();
      const url = gone.url;
      await gone.close();
      const patched = await suite.api.http().patch(`/v1/webhook-endpoints/${hook.id}`).set(suite.org.auth).send({ url });
      expect(patched.status).toBe(200);
      const refused = await post(`/v1/webhook-endpoints/${hook.id}:test`, suite.org);
      expect(refused.body).toMatchObject({ delivered: false, attempt: { statusCode: null, error: 'connection_failed' } });
    });

    it("hides another organization's endpoint exactly like an unknown one", async () => {
      const other = await createOrganization(suite.api.app, { test: true });
      const theirs = await endpoint(other, ['operation.succeeded']);
      const before = receiver.received.length;
      const foreign = await post(`/v1/webhook-endpoints/${theirs.id}:test`, suite.org);
      expectProblem(foreign, 404, 'not_found');
      expect(hidden(foreign)).toEqual(hidden(await post(`/v1/webhook-endpoints/${UNKNOWN.whe}:test`, suite.org)));
      expect(receiver.received.length).toBe(before);
    });
  });

  describe('live keys: every test-mode route refuses with 403 test_mode_only, changing nothing', () => {
    it.each([
      ['an embed session', (ids: LiveIds) => `/v1/embed-sessions/${ids.session}:expire`],
      ['an unknown embed session', () => `/v1/embed-sessions/${UNKNOWN.es}:expire`],
      ['a malformed embed session id', () => '/v1/embed-sessions/es_nope:expire'],
      ['an image asset', (ids: LiveIds) => `/v1/image-assets/${ids.asset}:expire`],
      ['an unknown image asset', () => `/v1/image-assets/${UNKNOWN.img}:expire`],
      ["a test organization's image asset", (ids: LiveIds) => `/v1/image-assets/${ids.testAsset}:expire`],
      ['an unknown webhook endpoint', () => `/v1/webhook-endpoints/${UNKNOWN.whe}:test`],
      ["a test organization's webhook endpoint", (ids: LiveIds) => `/v1/webhook-endpoints/${ids.testEndpoint}:test`],
    ])('%s', async (_, path) => {
      const ids = await liveIds();
      const before = receiver.received.length;
      const res = await post(path(ids), live);
      expectProblem(res, 403, 'test_mode_only');
      expect(res.body.detail).toMatch(/test organizations/);
      // Nothing changed: the session and the assets are as they were, nothing was sent.
      const session = await suite.api
        .http()
        .post(`/v1/embed-sessions/${ids.session}:extend`)
        .set(live.auth)
        .send({ expiresInSeconds: 600 });
      expect(session.status).toBe(200);
      expect((await suite.api.http().get(`/v1/image-assets/${ids.asset}`).set(live.auth)).status).toBe(200);
      expect((await suite.api.http().get(`/v1/image-assets/${ids.testAsset}`).set(suite.org.auth)).status).toBe(200);
      expect(receiver.received.length).toBe(before);
    });
  });

  describe('through the typed client', () => {
    it('asks for outcomes, moves the clock and sends test events; a live key gets SceneStudioError test_mode_only', async () => {
      const client = new SceneStudioClient({ apiKey: suite.org.apiKey, baseUrl: suite.api.url });
      const failed = await client.createScene({ prompt: testPrompt({ fail: 'provider_quota_exceeded' }, 'A harbour') });
      expect(await client.waitForOperation(failed.operationId)).toMatchObject({
        status: 'failed',
        error: { code: 'provider_quota_exceeded' },
      });
      const ok = await client.waitForOperation((await client.createScene({ prompt: testPrompt({ succeed: true }) })).operationId);
      expect(ok.status).toBe('succeeded');

      const session = await client.createEmbedSession({ sceneId: ok.sceneId!, origin: ORIGIN, mode: 'perform' });
      await expect(client.expireEmbedSession(session.embedSessionId)).resolves.toMatchObject({ embedSessionId: session.embedSessionId });
      const asset = await client.uploadImage(await image('png', 1920, 1080));
      await expect(client.expireImageAsset(asset.imageAssetId)).resolves.toMatchObject({ imageAssetId: asset.imageAssetId });
      const hook = await client.createWebhookEndpoint({ url: endpointUrl(), events: ['operation.failed'] });
      await expect(client.testWebhookEndpoint(hook.webhookEndpointId)).resolves.toMatchObject({ delivered: true, type: 'webhook.test' });

      const liveClient = new SceneStudioClient({ apiKey: live.apiKey, baseUrl: suite.api.url });
      await expect(liveClient.expireImageAsset(UNKNOWN.img)).rejects.toMatchObject({ status: 403, code: 'test_mode_only' });
    });
  });

  interface LiveIds {
    session: string;
    asset: string;
    testAsset: string;
    testEndpoint: string;
  }
  let liveIdsMade: Promise<LiveIds> | null = null;
  /** A live organization's session and asset, and a test organization's asset and endpoint, made once. */
  function liveIds(): Promise<LiveIds> {
    liveIdsMade ??= (async () => {
      const sceneId = await readyScene(suite.api, live);
      const session = await createEmbedSession(suite.api, live, { sceneId, origin: LIVE_ORIGIN, mode: 'edit' });
      expect(session.status).toBe(201);
      return {
        session: session.body.embedSessionId as string,
        asset: await uploadImage(suite.api, live),
        testAsset: await uploadImage(suite.api, suite.org),
        testEndpoint: (await endpoint(suite.org, ['operation.succeeded'])).id,
      };
    })();
    return liveIdsMade;
  }
});
