import { QueueService } from '@app/core';
import { EmbedSessionJob, EmbedSessionsService } from '@app/embed-sessions';
import { DataSource } from 'typeorm';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { startWorker } from '../support/apps';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WebhookJob } from '@app/webhooks';
import { stored } from '../support/stored';

const WORKER = {
  config: {
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
    WEBHOOK_TIMEOUT_MS: '1500',
  },
};

describe('webhook delivery: signed, from the outbox, retried, recorded, replayable', () => {
  const suite = setUpSuite({ worker: WORKER, org: false });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    receiver.answer = () => 204;
  });

  /** A fresh organization with one endpoint on the receiver; returns it and the endpoint's secret. */
  async function subscriber(events: string[], url = receiver.url): Promise<{ org: TestOrganization; endpointId: string; secret: string }> {
    const org = await createOrganization(suite.api.app, { test: true });
    const res = await suite.api.http().post('/v1/webhook-endpoints').set(org.auth).send({ url, events });
    expect(res.status).toBe(201);
    return { org, endpointId: res.body.webhookEndpointId, secret: res.body.secret };
  }

  const deliveries = (org: TestOrganization, endpointId: string) =>
    suite.api.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth);

  it('delivers operation.succeeded, signed (Standard Webhooks), carrying the operation exactly as GET shows it', async () => {
    const { org, secret } = await subscriber(['operation.succeeded', 'operation.failed']);
    const created = await createScene(suite.api, org, { prompt: 'A lighthouse on a cliff at dusk', externalRef: 'lighthouse-7' });
    const opId = created.body.operationId as string;
    const done = await awaitOperation(suite.api, org, opId);
    // What a receiver routes by, without a GET: the operation's kind and its scene's externalRef.
    expect(done.body).toMatchObject({ status: 'succeeded', kind: 'scene.create', externalRef: 'lighthouse-7' });
    const [event] = await pollUntil(
      () => Promise.resolve(receiver.verified(secret)),
      (v) => v.length >= 1,
      { what: 'the operation.succeeded delivery' },
    );
    expect(event).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/),
      type: 'operation.succeeded',
      timestamp: expect.any(String),
      data: done.body,
    });
    const raw = receiver.received.find((r) => r.id === event.id)!;
    expect(raw.headers['content-type']).toBe('application/json');
    expect(raw.headers['user-agent']).toMatch(/^SceneStudio-Webhooks\//);
    expect(Math.abs(Number(raw.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(raw.body).not.toContain('whsec_');
  });

  it('announces a deletion as scene.deleted, and the ends of embed sessions with their reasons (revoked, expired, scene deleted) once each', async () => {
    const { org, secret } = await subscriber(['operation.failed', 'scene.deleted', 'embed_session.ended']);
    const sceneId = await readyScene(suite.api, org, { prompt: 'A desert canyon at noon', externalRef: 'canyon-1' });
    const revoked = await createEmbedSession(suite.api, org, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    const expiring = await createEmbedSession(suite.api, org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    const deletedWith = await createEmbedSession(suite.api, org, { sceneId, origin: 'http://localhost:5173', mode: 'perform' });
    expect((await suite.api.http().delete(`/v1/embed-sessions/${revoked.body.embedSessionId}`).set(org.auth)).status).toBe(204);
    // Revoking again announces nothing more.
    expect((await suite.api.http().delete(`/v1/embed-sessions/${revoked.body.embedSessionId}`).set(org.auth)).status).toBe(204);
    // Expiry: the clock passes it; the maintenance job notices.
    await stored(suite.api.app.get(DataSource)).expireEmbedSession(expiring.body.embedSessionId);
    expect(await suite.worker.get(EmbedSessionsService).endExpired()).toEqual({ ended: 1 });
    expect(await suite.worker.get(EmbedSessionsService).endExpired()).toEqual({ ended: 0 });
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth)).status).toBe(204);
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret)),
      (v) => v.length >= 4,
      { what: 'four events', timeoutMs: 15_000 },
    );
    const byType = (t: string) => events.filter((e) => e.type === t).map((e) => e.data);
    expect(byType('embed_session.ended')).toEqual(
      expect.arrayContaining([
        { embedSessionId: revoked.body.embedSessionId, sceneId, reason: 'revoked' },
        { embedSessionId: expiring.body.embedSessionId, sceneId, reason: 'expired' },
        { embedSessionId: deletedWith.body.embedSessionId, sceneId, reason: 'scene_deleted' },
      ]),
    );
    expect(byType('embed_session.ended')).toHaveLength(3);
    expect(byType('scene.deleted')).toEqual([{ sceneId, externalRef: 'canyon-1' }]);
    // The scene's operations ended before the deletion: nothing failed.
    expect(byType('operation.failed')).toEqual([]);
    // Every message id is unique: one message per event.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('retries a failing receiver with backoff until a 2xx, with the same webhook-id and body, and lists every attempt', async () => {
    const { org, endpointId, secret } = await subscriber(['scene.deleted']);
    let calls = 0;
    receiver.answer = (r) => {
      if (!r.body.includes('"scene.deleted"')) return 204;
      calls += 1;
      return calls === 1 ? 500 : calls === 2 ? 302 : 200;
    };
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const page = await pollUntil(
      () => deliveries(org, endpointId),
      (r) => r.body.items?.[0]?.status === 'succeeded',
      { what: 'the delivery to succeed', timeoutMs: 15_000 },
    );
    const [delivery] = page.body.items;
    expect(delivery).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      type: 'scene.deleted',
      status: 'succeeded',
      attemptCount: 3,
      attempts: [
        { attemptedAt: expect.any(String), statusCode: 500, error: 'http_status', durationMs: expect.any(Number) },
        { attemptedAt: expect.any(String), statusCode: 302, error: 'http_status', durationMs: expect.any(Number) },
        { attemptedAt: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) },
      ],
      nextAttemptAt: null,
      createdAt: expect.any(String),
      completedAt: expect.any(String),
    });
    const mine = receiver.received.filter((r) => r.id === delivery.messageId);
    expect(mine).toHaveLength(3);
    expect(new Set(mine.map((r) => r.body)).size).toBe(1);
    // Each retry waited at least its place in the schedule (200 then 400 ms, less 10 %); lower
    // bounds only, since a loaded machine can stretch any wait.
    expect(mine[1].receivedAt - mine[0].receivedAt).toBeGreaterThanOrEqual(180);
    expect(mine[2].receivedAt - mine[1].receivedAt).toBeGreaterThanOrEqual(360);
    expect(receiver.verified(secret).filter((e) => e.id === delivery.messageId)).toHaveLength(3);

    // A replay sends it once more, same id, and records the attempt.
    const replay = await suite.api.http().post(`/v1/webhook-endpoints/${endpointId}/deliveries/${delivery.messageId}:replay`).set(org.auth);
    expect(replay.status).toBe(200);
    expect(replay.body.status).toBe('pending');
    await pollUntil(
      () => deliveries(org, endpointId),
      (r) => r.body.items[0].status === 'succeeded' && r.body.items[0].attempts.length === 4 && r.body.items[0].attemptCount === 4,
      { what: 'the replay' },
    );
    expect(receiver.received.filter((r) => r.id === delivery.messageId)).toHaveLength(4);
    // Replay is hidden like everything else.
    const other = await createOrganization(suite.api.app, { test: true });
    expectProblem(
      await suite.api.http().post(`/v1/webhook-endpoints/${endpointId}/deliveries/${delivery.messageId}:replay`).set(other.auth),
      404,
      'not_found',
    );
  });

  it('delivers a replay asked for during an attempt: that attempt ends logged, the replay decides', async () => {
    const { org, endpointId } = await subscriber(['scene.deleted']);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    receiver.answer = (r) => {
      if (!r.body.includes('"scene.deleted"')) return 204;
      calls += 1;
      // The first attempt is held open until the replay was asked for; it then succeeds too.
      return calls === 1 ? { status: 200, when: released } : 202;
    };
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const first = await pollUntil(
      () => Promise.resolve(receiver.received.find((r) => r.body.includes(sceneId))),
      (r) => r !== undefined,
      { what: 'the first attempt to reach the receiver' },
    );
    const replay = await suite.api.http().post(`/v1/webhook-endpoints/${endpointId}/deliveries/${first!.id}:replay`).set(org.auth);
    expect(replay.status).toBe(200);
    expect(replay.body.status).toBe('pending');
    release();
    const page = await pollUntil(
      () => deliveries(org, endpointId),
      (r) => r.body.items?.[0]?.status === 'succeeded' && r.body.items[0].attemptCount === 2,
      { what: 'the replay to be delivered and both attempts logged' },
    );
    const [delivery] = page.body.items;
    // The held attempt answered 200, or timed out (WEBHOOK_TIMEOUT_MS) on a machine slow enough to
    // take that long between it and the replay; either way it is logged, and the replay's 202 decided.
    const codes = delivery.attempts.map((a: { statusCode: number | null }) => a.statusCode);
    expect(codes).toHaveLength(2);
    expect(codes).toContain(202);
    expect([200, null]).toContain(codes.find((c: number | null) => c !== 202));
    expect(delivery.nextAttemptAt).toBeNull();
    expect(receiver.received.filter((r) => r.id === first!.id)).toHaveLength(2);
  });

  it('gives up after the schedule, and a receiver that never answers in time is cut off at WEBHOOK_TIMEOUT_MS', async () => {
    const { org, endpointId } = await subscriber(['scene.deleted']);
    receiver.answer = (r) => (r.body.includes('"scene.deleted"') ? 'drip' : 204);
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const page = await pollUntil(
      () => deliveries(org, endpointId),
      (r) => r.body.items?.[0]?.status === 'failed',
      { what: 'the delivery to fail for good', timeoutMs: 30_000, intervalMs: 200 },
    );
    const [delivery] = page.body.items;
    expect(delivery.attempts).toHaveLength(4);
    for (const a of delivery.attempts) {
      expect(a).toMatchObject({ statusCode: null, error: 'timeout' });
      expect(a.durationMs).toBeGreaterThanOrEqual(1400);
      expect(a.durationMs).toBeLessThan(5000);
    }
    expect(delivery.nextAttemptAt).toBeNull();
  });

  it('sends nothing to a disabled endpoint until it is enabled again, and nothing for events it did not subscribe to', async () => {
    const { org, endpointId, secret } = await subscriber(['scene.deleted']);
    await suite.api.http().patch(`/v1/webhook-endpoints/${endpointId}`).set(org.auth).send({ enabled: false });
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const listed = await deliveries(org, endpointId);
    // Disabled when the event happened: not subscribed at that moment, so nothing is queued for it.
    expect(listed.body.items).toEqual([]);
    await suite.api.http().patch(`/v1/webhook-endpoints/${endpointId}`).set(org.auth).send({ enabled: true });
    const second = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${second}`).set(org.auth);
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret)),
      (v) => v.length >= 1,
      { what: 'the delivery after enabling' },
    );
    expect(events.map((e) => e.data)).toEqual([{ sceneId: second, externalRef: null }]);
    // operation.succeeded was not subscribed: no delivery of it.
    expect(events.every((e) => e.type === 'scene.deleted')).toBe(true);
  });

  it('disables an endpoint that keeps failing for WEBHOOK_DISABLE_AFTER_SECONDS, with the reason', async () => {
    // The worker keeps the default (5 days): the streak is made to have started 6 days ago.
    const { org, endpointId } = await subscriber(['scene.deleted']);
    receiver.answer = (r) => (r.body.includes('"scene.deleted"') ? 503 : 204);
    await suite.api.app
      .get(DataSource)
      .query(`UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`, [endpointId]);
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const endpoint = await pollUntil(
      () => suite.api.http().get(`/v1/webhook-endpoints/${endpointId}`).set(org.auth),
      (r) => r.body.enabled === false,
      { what: 'the endpoint to be disabled' },
    );
    expect(endpoint.body.disabledReason).toBe('failing');
  });

  it('keeps delivering while the previous secret overlaps a rotation: both signatures verify', async () => {
    const { org, endpointId, secret: before } = await subscriber(['scene.deleted']);
    const rotated = await suite.api
      .http()
      .post(`/v1/webhook-endpoints/${endpointId}:rotate-secret`)
      .set(org.auth)
      .send({ overlapSeconds: 3600 });
    const after = rotated.body.secret as string;
    const sceneId = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth);
    const [byNew] = await pollUntil(
      () => Promise.resolve(receiver.verified(after)),
      (v) => v.length >= 1,
      { what: 'a delivery signed with the new secret' },
    );
    expect(receiver.verified(before).map((e) => e.id)).toContain(byNew.id);
    const raw = receiver.received.find((r) => r.id === byNew.id)!;
    expect(raw.signature.split(' ')).toHaveLength(2);
    // Without overlap, the old secret stops at once.
    const again = await suite.api
      .http()
      .post(`/v1/webhook-endpoints/${endpointId}:rotate-secret`)
      .set(org.auth)
      .send({ overlapSeconds: 0 });
    const third = await readyScene(suite.api, org);
    await suite.api.http().delete(`/v1/scenes/${third}`).set(org.auth);
    const [latest] = await pollUntil(
      () => Promise.resolve(receiver.verified(again.body.secret as string)),
      (v) => v.length >= 1,
      { what: 'a delivery signed with the third secret' },
    );
    expect(receiver.received.find((r) => r.id === latest.id)!.signature.split(' ')).toHaveLength(1);
    expect(receiver.verified(after).map((e) => e.id)).not.toContain(latest.id);
  });

  it('extends an active session; expired, revoked and other organizations’ sessions are 404', async () => {
    const { org } = await subscriber(['embed_session.ended']);
    const sceneId = await readyScene(suite.api, org);
    const session = await createEmbedSession(suite.api, org, {
      sceneId,
      origin: 'http://localhost:5173',
      mode: 'edit',
      expiresInSeconds: 300,
    });
    const path = `/v1/embed-sessions/${session.body.embedSessionId}:extend`;
    const res = await suite.api.http().post(path).set(org.auth).send({ expiresInSeconds: 7200 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ embedSessionId: session.body.embedSessionId, expiresAt: expect.any(String) });
    const lifetime = (Date.parse(res.body.expiresAt) - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(7100);
    expect(lifetime).toBeLessThanOrEqual(7200);
    expectProblem(await suite.api.http().post(path).set(org.auth).send({ expiresInSeconds: 299 }), 422, 'validation_failed');
    expectProblem(await suite.api.http().post(path).set(org.auth).send({ expiresInSeconds: 86401 }), 422, 'validation_failed');
    expectProblem(await suite.api.http().post(path).set(org.auth).send({}), 422, 'validation_failed');
    const other = await createOrganization(suite.api.app, { test: true });
    expectProblem(await suite.api.http().post(path).set(other.auth).send({ expiresInSeconds: 600 }), 404, 'not_found');
    await suite.api.http().delete(`/v1/embed-sessions/${session.body.embedSessionId}`).set(org.auth);
    expectProblem(await suite.api.http().post(path).set(org.auth).send({ expiresInSeconds: 600 }), 404, 'not_found');
    // Expired sessions cannot be brought back.
    const expired = await createEmbedSession(suite.api, org, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    await stored(suite.api.app.get(DataSource)).expireEmbedSession(expired.body.embedSessionId);
    expectProblem(
      await suite.api.http().post(`/v1/embed-sessions/${expired.body.embedSessionId}:extend`).set(org.auth).send({ expiresInSeconds: 600 }),
      404,
      'not_found',
    );
  });

  it('runs the expiry and retention jobs on their schedules in the maintenance queue', async () => {
    const schedulers = await suite.worker
      .get(QueueService)
      .queue('maintenance' as never)
      .getJobSchedulers();
    expect(schedulers.map((s) => s.key ?? s.name)).toEqual(
      expect.arrayContaining([EmbedSessionJob.EndExpired.name, WebhookJob.PurgeOld.name]),
    );
  });
});

describe('webhook delivery of a cancel, with the worker started after it', () => {
  // No worker at first: the operation stays processing until it is cancelled.
  const suite = setUpSuite({ org: false });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());

  it('announces a cancelled creation as operation.failed (cancelled), as GET shows it', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['operation.failed'] });
    const created = await createScene(suite.api, org, { prompt: 'A glacier under aurora' });
    const cancelled = await suite.api.http().post(`/v1/operations/${created.body.operationId}:cancel`).set(org.auth);
    expect(cancelled.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' }, kind: 'scene.create', externalRef: null });
    const worker = await startWorker(suite.env, WORKER);
    try {
      const events = await pollUntil(
        () => Promise.resolve(receiver.verified(endpoint.body.secret as string)),
        (v) => v.length >= 1,
        { what: 'the operation.failed delivery' },
      );
      expect(events.map((e) => [e.type, e.data])).toEqual([['operation.failed', cancelled.body]]);
    } finally {
      await worker.close();
    }
  });
});
