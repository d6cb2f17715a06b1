import { MAINTENANCE_QUEUE, QueueService } from '@app/core';
import {
  GenerationError,
  GenerationRequest,
  JobPoll,
  ProceduralSceneGenerator,
  ProviderJob,
  SceneGenerator,
  SubmitOutcome,
} from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { SceneJob, SceneJobScheduler, ScenePurge } from '@app/operations';
import { SceneDeletionHooks } from '@app/scenes';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';
import { EmbedSessionJob } from '@app/embed-sessions';
import { WebhookJob } from '@app/webhooks';

const ORIGIN = 'http://localhost:5173';

/**
 * The built-in generator, except for prompts starting with HOLD: those become provider jobs that
 * run until the test fails them (`fail(operationId)`), so a scene stays `generating` for as long
 * as a test needs and its creation can fail on cue.
 */
class HeldGenerator extends SceneGenerator {
  readonly name = 'held';
  private readonly failing = new Set<string>();
  private readonly procedural = new ProceduralSceneGenerator(new SharpImageMedia());

  fail(operationId: string): void {
    this.failing.add(operationId);
  }

  submit(request: GenerationRequest): Promise<SubmitOutcome> {
    // The operation id is the submit's idempotency key: the job is named after it.
    if (request.prompt.startsWith('HOLD')) return Promise.resolve({ job: { id: request.idempotencyKey } });
    return this.procedural.submit(request);
  }

  override poll(job: ProviderJob): Promise<JobPoll> {
    if (this.failing.has(job.id)) {
      return Promise.resolve({
        status: 'failed',
        error: new GenerationError('provider_rejected', 'The provider refused this scene.', false),
      });
    }
    return Promise.resolve({ status: 'running', progress: 0.3 });
  }

  override cancel(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

/**
 * docs/api.md, `DELETE /v1/scenes/{sceneId}`: deleting a scene in any state — generating, ready, or a
 * creation that failed or was cancelled — revokes its embed sessions at once (the studio answers
 * as for an ended session, `:extend` refuses), announces `embed_session.ended` (`scene_deleted`)
 * and `scene.deleted` once, and the purge that follows leaves a tombstone under which replays of
 * the creating request and 404s behave as before.
 */
describe('DELETE /v1/scenes/{id} in every state', () => {
  const held = new HeldGenerator();
  const suite = setUpSuite({
    studio: {},
    worker: {
      config: { GENERATION_POLL_INTERVAL_MS: '50', GENERATION_POLL_MAX_MS: '100', WEBHOOK_POLL_INTERVAL_MS: '50' },
      override: (b) => b.overrideProvider(SceneGenerator).useValue(held),
    },
  });
  let receiver: WebhookReceiver;
  let secret: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(suite.org.auth)
      .send({ url: receiver.url, events: ['scene.deleted', 'embed_session.ended'] });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret as string;
  });
  afterAll(() => receiver?.close());

  const db = () => suite.api.app.get(DataSource);

  /** A scene created with its Idempotency-Key and body kept, for the replay after the purge. */
  async function create(prompt: string) {
    const externalRef = `erase-${randomUUID()}`;
    const key = randomUUID();
    const body = { prompt, externalRef };
    const created = await createScene(suite.api, suite.org, body, key);
    expect(created.status).toBe(202);
    const found = await suite.api.http().get('/v1/scenes').query({ externalRef }).set(suite.org.auth);
    expect(found.status).toBe(200);
    return { sceneId: found.body.sceneId as string, operationId: created.body.operationId as string, externalRef, key, body, created };
  }

  /** An edit session on the scene, working (the studio answers 200) before the deletion. */
  async function openSession(sceneId: string) {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode: 'edit' });
    expect(res.status).toBe(201);
    const session = { id: res.body.embedSessionId as string, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
    expect((await suite.studio.http().get('/studio-api/v1/session').set(session.bearer)).status).toBe(200);
    return session;
  }

  async function expectErasedAtOnce(scene: Awaited<ReturnType<typeof create>>, session: Awaited<ReturnType<typeof openSession>>) {
    expect((await suite.api.http().delete(`/v1/scenes/${scene.sceneId}`).set(suite.org.auth)).status).toBe(204);

    // The studio answers as for an ended session: its API and its page alike.
    const api = await suite.studio.http().get('/studio-api/v1/session').set(session.bearer);
    expectProblem(api, 401, 'session_ended');
    expect(api.body.reason).toBe('revoked');
    const page = await suite.studio.http().get(`/embed/${session.id}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain('This session has ended');
    expect(page.headers['content-security-policy']).toMatch(/^frame-ancestors 'none'/);
    expectProblem(
      await suite.api.http().post(`/v1/embed-sessions/${session.id}:extend`).set(suite.org.auth).send({ expiresInSeconds: 3600 }),
      404,
      'not_found',
    );
    expectProblem(await suite.api.http().get(`/v1/scenes/${scene.sceneId}`).set(suite.org.auth), 404, 'not_found');

    // Announced once each, delivered, and a second deletion announces nothing more.
    const isOurs = (e: { type: string; data: Record<string, unknown> }) => e.data.sceneId === scene.sceneId;
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret).filter(isOurs)),
      (v) => v.length >= 2,
      { what: `the two events of ${scene.sceneId}` },
    );
    expect((await suite.api.http().delete(`/v1/scenes/${scene.sceneId}`).set(suite.org.auth)).status).toBe(204);
    const outbox = await db().query<{ type: string }[]>(
      `SELECT type FROM webhook_messages WHERE organization_id = $1 AND payload->'data'->>'sceneId' = $2 ORDER BY type`,
      [suite.org.organizationId, scene.sceneId],
    );
    expect(outbox.map((m) => m.type)).toEqual(['embed_session.ended', 'scene.deleted']);
    expect(events.map((e) => [e.type, e.data])).toEqual(
      expect.arrayContaining([
        ['embed_session.ended', { embedSessionId: session.id, sceneId: scene.sceneId, reason: 'scene_deleted' }],
        ['scene.deleted', { sceneId: scene.sceneId, externalRef: scene.externalRef }],
      ]),
    );
    expect(events).toHaveLength(2);
  }

  /** After the purge: a tombstone under which 404s stay 404s and the creating request still replays. */
  async function expectTombstoneAfterPurge(scene: Awaited<ReturnType<typeof create>>) {
    await suite.worker.get(ScenePurge).purgeDeleted();
    const [row] = await db().query<Record<string, unknown>[]>(
      `SELECT prompt, external_ref, source_asset_id, deleted_at, purged_at FROM scenes WHERE id = $1`,
      [scene.sceneId],
    );
    expect(row).toEqual({
      prompt: null,
      external_ref: null,
      source_asset_id: null,
      deleted_at: expect.any(Date),
      purged_at: expect.any(Date),
    });
    const replay = await createScene(suite.api, suite.org, scene.body, scene.key);
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(scene.created.headers.location);
    expect(replay.body).toEqual(scene.created.body);
    expectProblem(await suite.api.http().get(`/v1/operations/${scene.operationId}`).set(suite.org.auth), 404, 'not_found');
    expectProblem(await suite.api.http().get(`/v1/scenes/${scene.sceneId}`).set(suite.org.auth), 404, 'not_found');
    expectProblem(await suite.api.http().get('/v1/scenes').query({ externalRef: scene.externalRef }).set(suite.org.auth), 404, 'not_found');
  }

  it('generating: revoked at once, announced once, and the generation never brings it back', async () => {
    const scene = await create('HOLD A lighthouse in a storm');
    await pollUntil(
      () => suite.api.http().get(`/v1/operations/${scene.operationId}`).set(suite.org.auth),
      (r) => r.body.stage === 'generating',
      { what: 'the provider job to run' },
    );
    const session = await openSession(scene.sceneId);
    await expectErasedAtOnce(scene, session);
    const [op] = await db().query<{ status: string; error_code: string }[]>(`SELECT status, error_code FROM operations WHERE id = $1`, [
      scene.operationId,
    ]);
    expect(op).toEqual({ status: 'failed', error_code: 'scene_deleted' });
    await expectTombstoneAfterPurge(scene);
  });

  it('ready: revoked at once and announced once', async () => {
    const body = { prompt: 'A calm harbour at dawn', externalRef: `erase-${randomUUID()}` };
    const key = randomUUID();
    const created = await createScene(suite.api, suite.org, body, key);
    const done = await awaitOperation(suite.api, suite.org, created.body.operationId as string);
    expect(done.body.status).toBe('succeeded');
    const scene = {
      sceneId: done.body.sceneId as string,
      operationId: created.body.operationId as string,
      externalRef: body.externalRef,
      key,
      body,
      created,
    };
    const session = await openSession(scene.sceneId);
    await expectErasedAtOnce(scene, session);
    await expectTombstoneAfterPurge(scene);
  });

  it('failed creation: its still-open session is revoked at once and the deletion announced once', async () => {
    const scene = await create('HOLD A canyon that the provider refuses');
    const session = await openSession(scene.sceneId);
    held.fail(scene.operationId);
    const failed = await awaitOperation(suite.api, suite.org, scene.operationId);
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'provider_rejected' } });
    // Hidden from the partner API, yet its studio still shows the failure until the deletion.
    expectProblem(await suite.api.http().get(`/v1/scenes/${scene.sceneId}`).set(suite.org.auth), 404, 'not_found');
    const studio = await suite.studio.http().get('/studio-api/v1/session').set(session.bearer);
    expect(studio.status).toBe(200);
    expect(studio.body.scene).toMatchObject({ status: 'failed', error: { code: 'provider_rejected' } });
    await expectErasedAtOnce(scene, session);
    await expectTombstoneAfterPurge(scene);
  });

  it('cancelled creation: its still-open session is revoked at once and the deletion announced once (issue 25)', async () => {
    const scene = await create('HOLD A glacier under aurora');
    const session = await openSession(scene.sceneId);
    const cancelled = await suite.api.http().post(`/v1/operations/${scene.operationId}:cancel`).set(suite.org.auth);
    expect(cancelled.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    // The reported bug: before the fix, this session kept working after the DELETE below.
    expect((await suite.studio.http().get('/studio-api/v1/session').set(session.bearer)).status).toBe(200);
    await expectErasedAtOnce(scene, session);
    await expectTombstoneAfterPurge(scene);
  });

  it('the answer does not wait for the follow-ups: a worker job marks the sessions revoked and announces each once', async () => {
    const body = { prompt: 'A harbour at dusk', externalRef: `erase-${randomUUID()}` };
    const created = await createScene(suite.api, suite.org, body);
    const sceneId = (await awaitOperation(suite.api, suite.org, created.body.operationId as string)).body.sceneId as string;
    const sessions = [await openSession(sceneId), await openSession(sceneId)];
    const inApi = jest.spyOn(suite.api.app.get(SceneDeletionHooks), 'runFollowUps');
    try {
      expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
      // Refused from the deletion's commit, whatever the rows say yet.
      for (const s of sessions) expectProblem(await suite.studio.http().get('/studio-api/v1/session').set(s.bearer), 401, 'session_ended');
      const rows = await pollUntil(
        () =>
          db().query<{ revoked_reason: string | null }[]>(`SELECT revoked_reason FROM embed_sessions WHERE scene_id = $1 ORDER BY id`, [
            sceneId,
          ]),
        (r) => r.every((row) => row.revoked_reason !== null),
        { what: `the sessions of ${sceneId} marked revoked` },
      );
      expect(rows).toEqual([{ revoked_reason: 'scene_deleted' }, { revoked_reason: 'scene_deleted' }]);
      expect(inApi).not.toHaveBeenCalled();
    } finally {
      inApi.mockRestore();
    }
    const job = await suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE).getJob(`finish-deletion-${sceneId}`);
    expect(job).toMatchObject({ name: SceneJob.FinishDeletion.name, data: { sceneId } });
    await pollUntil(
      () => job!.getState(),
      (state) => state === 'completed',
      { what: 'the follow-up job to complete' },
    );
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret).filter((e) => e.type === 'embed_session.ended' && e.data.sceneId === sceneId)),
      (v) => v.length >= 2,
      { what: `the ends of ${sceneId}'s sessions` },
    );
    expect(events.map((e) => e.data.embedSessionId).sort()).toEqual(sessions.map((s) => s.id).sort());
    // A job run again (a retry, the purge) finds nothing left to announce.
    await expect(suite.worker.get(ScenePurge).finishDeletion({ sceneId })).resolves.toEqual({ finished: true });
    const announced = await db().query<{ n: string }[]>(
      `SELECT count(*) AS n FROM webhook_messages WHERE organization_id = $1 AND type = 'embed_session.ended' AND payload->'data'->>'sceneId' = $2`,
      [suite.org.organizationId, sceneId],
    );
    expect(Number(announced[0].n)).toBe(2);
  });

  it('a scene nobody has open costs no follow-up job', async () => {
    const body = { prompt: 'An empty gallery', externalRef: `erase-${randomUUID()}` };
    const created = await createScene(suite.api, suite.org, body);
    const sceneId = (await awaitOperation(suite.api, suite.org, created.body.operationId as string)).body.sceneId as string;
    // Its only session was revoked before: nothing is left for a follow-up to end.
    const session = await openSession(sceneId);
    expect((await suite.api.http().delete(`/v1/embed-sessions/${session.id}`).set(suite.org.auth)).status).toBe(204);
    const schedule = jest.spyOn(suite.api.app.get(SceneJobScheduler), 'finishDeletion');
    try {
      expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
      expect(schedule).not.toHaveBeenCalled();
    } finally {
      schedule.mockRestore();
    }
    expect(await suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE).getJob(`finish-deletion-${sceneId}`)).toBeUndefined();
  });

  it('a follow-up job for a scene that is not deleted (or not there) changes nothing', async () => {
    const body = { prompt: 'A meadow in spring', externalRef: `keep-${randomUUID()}` };
    const created = await createScene(suite.api, suite.org, body);
    const sceneId = (await awaitOperation(suite.api, suite.org, created.body.operationId as string)).body.sceneId as string;
    const session = await openSession(sceneId);
    await expect(suite.worker.get(ScenePurge).finishDeletion({ sceneId })).resolves.toEqual({ finished: false });
    await expect(suite.worker.get(ScenePurge).finishDeletion({ sceneId: 'scn_nothere' })).resolves.toEqual({ finished: false });
    expect((await suite.studio.http().get('/studio-api/v1/session').set(session.bearer)).status).toBe(200);
  });

  it('a deletion whose follow-up job was lost (Redis away after the commit): refused at once, the purge revokes and announces once', async () => {
    const body = { prompt: 'A quiet fjord at noon', externalRef: `erase-${randomUUID()}` };
    const created = await createScene(suite.api, suite.org, body);
    const done = await awaitOperation(suite.api, suite.org, created.body.operationId as string);
    const sceneId = done.body.sceneId as string;
    const session = await openSession(sceneId);
    const schedule = jest.spyOn(suite.api.app.get(SceneJobScheduler), 'finishDeletion').mockRejectedValueOnce(new Error('Redis away'));
    try {
      expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
      expect(schedule).toHaveBeenCalledWith(sceneId);
    } finally {
      schedule.mockRestore();
    }
    // The deletion committed, so the studio refuses the session whatever its row says.
    expectProblem(await suite.studio.http().get('/studio-api/v1/session').set(session.bearer), 401, 'session_ended');
    const row = () =>
      db()
        .query<{ revoked_reason: string | null }[]>(`SELECT revoked_reason FROM embed_sessions WHERE id = $1`, [session.id])
        .then((rows) => rows[0]);
    const announced = () =>
      db()
        .query<{ type: string }[]>(
          `SELECT type FROM webhook_messages WHERE organization_id = $1 AND payload->'data'->>'embedSessionId' = $2`,
          [suite.org.organizationId, session.id],
        )
        .then((rows) => rows.map((r) => r.type));
    expect(await row()).toEqual({ revoked_reason: null });
    expect(await announced()).toEqual([]);
    // Revoking the session meanwhile does not make its end a `revoked` one: it ended with its scene.
    expect((await suite.api.http().delete(`/v1/embed-sessions/${session.id}`).set(suite.org.auth)).status).toBe(204);
    expect(await row()).toEqual({ revoked_reason: null });
    expect(await announced()).toEqual([]);

    await suite.worker.get(ScenePurge).purgeDeleted();
    expect(await row()).toEqual({ revoked_reason: 'scene_deleted' });
    expect(await announced()).toEqual(['embed_session.ended']);
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret).filter((e) => e.data.embedSessionId === session.id)),
      (v) => v.length >= 1,
      { what: `the end of ${session.id}` },
    );
    expect(events.map((e) => e.data)).toEqual([{ embedSessionId: session.id, sceneId, reason: 'scene_deleted' }]);
    // Once: another purge and another DELETE add nothing.
    await suite.worker.get(ScenePurge).purgeDeleted();
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    expect(await announced()).toEqual(['embed_session.ended']);
  });

  it('the purge runs on the worker every 5 minutes, well within the 24 hours', async () => {
    const schedulers = await suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE).getJobSchedulers();
    const every = (name: string) => schedulers.find((s) => (s.key ?? s.name) === name)?.every;
    expect(every(SceneJob.PurgeDeleted.name)).toBe(5 * 60_000);
    expect(every(SceneJob.PurgeOldOperations.name)).toBe(60 * 60_000);
    expect(every(EmbedSessionJob.PurgeEnded.name)).toBe(60 * 60_000);
    expect(every(WebhookJob.PurgeOld.name)).toBe(60 * 60_000);
  });
});
