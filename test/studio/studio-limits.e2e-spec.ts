import { QueueService, REDIS } from '@app/core';
import { Redis } from 'ioredis';
import { viewDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { awaitOperation } from '../factories/scene.factory';
import { RunningHttpApp, startStudio } from '../support/apps';
import { pollUntil } from '../support/poll';
import { startStudioProcess } from '../support/processes';
import { expectProblem } from '../support/problems';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { SCENES_QUEUE } from '@app/operations';

const ORIGIN = 'http://localhost:5173';
type Mode = 'edit' | 'perform' | 'edit_and_perform';

/**
 * The studio's own limits per embed session (docs/embed.md "The studio's
 * limits"), at the documented numbers, against two studio replicas sharing Redis: one edit in
 * flight, 30 edits an hour, 120 other writes a minute, 5 open event streams.
 */
describe("the studio's limits per embed session", () => {
  const suite = setUpSuite({ studio: {}, worker: {}, org: { test: true } });
  let second: RunningHttpApp;

  beforeAll(async () => {
    second = await startStudio(suite.env);
  });

  afterAll(async () => {
    await second?.close();
  });

  async function session(sceneId: string, mode: Mode) {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId as string, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  const edit = (studio: RunningHttpApp, bearer: Record<string, string>, instruction = 'add fog') =>
    studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction });
  const revert = (studio: RunningHttpApp, bearer: Record<string, string>, version: number) =>
    studio.http().post(`/studio-api/v1/scene/versions/${version}:revert`).set(bearer);
  const turns = async (bearer: Record<string, string>) =>
    (await suite.studio.http().get('/studio-api/v1/edits').set(bearer)).body.turns as Array<{ status: string }>;

  describe('edits', () => {
    it('one edit in flight: of 40 concurrent edits over two replicas one is accepted, the others are 409 edit_in_progress', async () => {
      const sceneId = await readyScene(suite.api, suite.org);
      const { bearer } = await session(sceneId, 'edit');
      const other = await session(sceneId, 'edit_and_perform');
      // Held in the queue, so the accepted edit is still in flight when the others arrive.
      const queue = suite.worker.get(QueueService).queue(SCENES_QUEUE);
      await queue.pause();
      let accepted: string;
      try {
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            i % 4 === 3 ? revert(i % 2 ? second : suite.studio, bearer, 1) : edit(i % 2 ? second : suite.studio, bearer, `edit ${i}`),
          ),
        );
        const statuses = answers.map((a) => a.status);
        expect(statuses.filter((s) => s === 202)).toHaveLength(1);
        expect(statuses.filter((s) => s === 409)).toHaveLength(39);
        for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, 'edit_in_progress');
        accepted = answers.find((a) => a.status === 202)!.body.operationId;
        // Another session of the same scene waits too: the rule is the scene's.
        expectProblem(await edit(suite.studio, other.bearer), 409, 'edit_in_progress');
        expect(await turns(bearer)).toHaveLength(1);
      } finally {
        await queue.resume();
      }
      expect((await awaitOperation(suite.api, suite.org, accepted)).body.status).toBe('succeeded');
      const next = await edit(second, bearer, 'now more trees');
      expect(next.status).toBe(202);
      expect((await awaitOperation(suite.api, suite.org, next.body.operationId)).body).toMatchObject({ status: 'succeeded', version: 3 });
    });

    it('30 edit turns an hour per session, counted across replicas; the 31st is 429 rate_limited with Retry-After', async () => {
      const sceneId = await readyScene(suite.api, suite.org);
      const { bearer } = await session(sceneId, 'edit');
      // Refusals spend nothing: an edit in flight (409) and a bad instruction (422) are no edit.
      const queue = suite.worker.get(QueueService).queue(SCENES_QUEUE);
      await queue.pause();
      let first: string;
      try {
        const res = await edit(suite.studio, bearer, 'edit 1');
        expect(res.status).toBe(202);
        first = res.body.operationId;
        for (let i = 0; i < 5; i++) expectProblem(await edit(second, bearer, 'too soon'), 409, 'edit_in_progress');
        expectProblem(await suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({}), 422, 'validation_failed');
      } finally {
        await queue.resume();
      }
      await awaitOperation(suite.api, suite.org, first);
      for (let n = 2; n <= 30; n++) {
        // Reverts are edit turns too: every fifth turn is one.
        const res =
          n % 5 === 0
            ? await revert(n % 2 ? second : suite.studio, bearer, 1)
            : await edit(n % 2 ? second : suite.studio, bearer, `edit ${n}`);
        expect(res.status).toBe(202);
        await awaitOperation(suite.api, suite.org, res.body.operationId);
      }

      for (const refused of [await edit(suite.studio, bearer, 'edit 31'), await revert(second, bearer, 1)]) {
        expectProblem(refused, 429, 'rate_limited');
        const retryAfter = Number(refused.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(3000);
        expect(retryAfter).toBeLessThanOrEqual(3600);
      }
      // Nothing was started for them.
      expect(await turns(bearer)).toHaveLength(30);
      // Another session, even of the same scene, has its own budget; reads go on.
      const other = await session(sceneId, 'edit');
      const theirs = await edit(second, other.bearer, 'their edit');
      expect(theirs.status).toBe(202);
      await awaitOperation(suite.api, suite.org, theirs.body.operationId);
      expect((await suite.studio.http().get('/studio-api/v1/session').set(bearer)).status).toBe(200);
    });
  });

  describe('other writes', () => {
    it('120 a minute per session across replicas; the 121st is 429 rate_limited with Retry-After; reads and edits are not counted', async () => {
      const sceneId = await readyScene(suite.api, suite.org);
      const { bearer } = await session(sceneId, 'edit_and_perform');
      const paths = (studio: RunningHttpApp) => studio.http().post('/studio-api/v1/camera-paths').set(bearer);
      for (let n = 1; n <= 60; n++) {
        const studio = n % 2 ? suite.studio : second;
        const created = await paths(studio).send({ kind: 'view', name: `View ${n}`, document: viewDocument() });
        expect(created.status).toBe(201);
        // A read between writes costs nothing.
        expect((await studio.http().get(`/studio-api/v1/camera-paths/${created.body.cameraPathId}`).set(bearer)).status).toBe(200);
        expect((await studio.http().delete(`/studio-api/v1/camera-paths/${created.body.cameraPathId}`).set(bearer)).status).toBe(204);
      }
      for (const studio of [suite.studio, second]) {
        const refused = await paths(studio).send({ kind: 'view', name: 'One too many', document: viewDocument() });
        expectProblem(refused, 429, 'rate_limited');
        const retryAfter = Number(refused.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      expect((await suite.studio.http().get('/studio-api/v1/camera-paths').set(bearer)).body.cameraPaths).toEqual([]);
      // Edits have their own budget.
      const res = await edit(second, bearer);
      expect(res.status).toBe(202);
      await awaitOperation(suite.api, suite.org, res.body.operationId);
      // Another session of the scene writes on.
      const other = await session(sceneId, 'perform');
      const theirs = await suite.studio
        .http()
        .post('/studio-api/v1/camera-paths')
        .set(other.bearer)
        .send({ kind: 'view', name: 'Theirs', document: viewDocument() });
      expect(theirs.status).toBe(201);
    });
  });

  describe('event streams', () => {
    const redis = () => suite.studio.app.get<Redis>(REDIS);
    const places = (sessionId: string) => redis().scard(`${suite.env.queuePrefix}:studio:streams:${sessionId}`);
    const open = (studio: { url: string }, bearer: Record<string, string>) => SseClient.open(`${studio.url}/studio-api/v1/events`, bearer);
    const streams: SseClient[] = [];
    let sceneId: string;

    beforeAll(async () => {
      sceneId = await readyScene(suite.api, suite.org);
    });

    afterEach(() => {
      for (const s of streams.splice(0)) s.close();
    });

    async function openFive(bearer: Record<string, string>): Promise<SseClient[]> {
      const five: SseClient[] = [];
      for (let i = 0; i < 5; i++) {
        const stream = await open(i % 2 ? second : suite.studio, bearer);
        streams.push(stream);
        expect(stream.status).toBe(200);
        await stream.next('scene.status');
        five.push(stream);
      }
      return five;
    }

    async function expectRefused(studio: { url: string }, bearer: Record<string, string>): Promise<void> {
      const res = await fetch(`${studio.url}/studio-api/v1/events`, { headers: bearer });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('10');
      expect(await res.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    }

    it('5 open per session across replicas: the 6th is 429; a closed one frees its place, on either replica', async () => {
      const { id, bearer } = await session(sceneId, 'perform');
      const five = await openFive(bearer);
      await expectRefused(suite.studio, bearer);
      await expectRefused(second, bearer);
      expect(await places(id)).toBe(5);
      // Another session has its own five.
      const other = await session(sceneId, 'perform');
      const theirs = await open(second, other.bearer);
      streams.push(theirs);
      expect(theirs.status).toBe(200);

      // The page goes away (a stream of the second replica): its place comes free.
      five[1].close();
      await pollUntil(
        () => places(id),
        (n) => n === 4,
        { what: 'the closed stream to give its place back' },
      );
      const again = await open(suite.studio, bearer);
      streams.push(again);
      expect(again.status).toBe(200);
      await expectRefused(second, bearer);
    });

    it('every way a stream ends gives its place back: the session ending, the replica shutting down', async () => {
      const { id, bearer } = await session(sceneId, 'perform');
      const third = await startStudio(suite.env);
      let thirdClosed = false;
      try {
        for (const studio of [third, third, suite.studio, second, suite.studio]) {
          const stream = await open(studio, bearer);
          streams.push(stream);
          expect(stream.status).toBe(200);
          await stream.next('scene.status');
        }
        expect(await places(id)).toBe(5);
        // A replica shutting down ends its streams and frees their places before it stops.
        await third.close();
        thirdClosed = true;
        expect(await places(id)).toBe(3);
      } finally {
        if (!thirdClosed) await third.close();
      }
      const reopened = await open(suite.studio, bearer);
      streams.push(reopened);
      expect(reopened.status).toBe(200);
      expect(await places(id)).toBe(4);

      // The session ends (revoked): every stream is told and closed, and every place is free.
      expect((await suite.api.http().delete(`/v1/embed-sessions/${id}`).set(suite.org.auth)).status).toBe(204);
      await pollUntil(
        () => places(id),
        (n) => n === 0,
        { what: 'the ended session to free its places', timeoutMs: 5000 },
      );
    });

    it('a replica that died without giving its places back loses them once its heartbeat is 10 s old', async () => {
      const { id, bearer } = await session(sceneId, 'perform');
      // A studio process of the build, killed (SIGKILL) with five streams open: nothing of it
      // gives its places back; its heartbeat stops.
      const doomed = await startStudioProcess(suite.env);
      try {
        for (let i = 0; i < 5; i++) {
          const stream = await open(doomed, bearer);
          streams.push(stream);
          expect(stream.status).toBe(200);
          await stream.next('scene.status');
        }
        await expectRefused(suite.studio, bearer);
        const killedAt = Date.now();
        await doomed.stop('SIGKILL');
        expect(await places(id)).toBe(5);
        // Still refused while the dead process's heartbeat is younger than the lease…
        await expectRefused(second, bearer);
        // …and free once it is older: the next claim at the limit drops the dead process's places.
        const reopened = await pollUntil(
          () => open(second, bearer),
          (s) => s.status === 200,
          { what: 'the dead replica’s places to come free', timeoutMs: 15_000, intervalMs: 250 },
        );
        streams.push(reopened);
        expect(Date.now() - killedAt).toBeGreaterThanOrEqual(7_500);
        expect(await places(id)).toBe(1);
      } finally {
        await doomed.stop('SIGKILL');
      }
    });
  });
});
