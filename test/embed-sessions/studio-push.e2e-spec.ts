import { ManualClock, REDIS } from '@app/core';
import { TcpProxy } from '@app/core/testing';
import { EmbedSessionsService } from '@app/embed-sessions';
import { StreamSlots } from '@apps/studio/events/stream-slots';
import { StudioEventsHub } from '@apps/studio/events/studio-events.hub';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation } from '../factories/scene.factory';
import { RunningHttpApp, startStudio } from '../support/apps';
import { PgStatementCounter } from '../support/pg-statements';
import { killBroadcastSubscribers } from '../support/broadcast-subscribers';
import { pollUntil } from '../support/poll';
import { runCli } from '../support/processes';
import { RedisCommandCounter } from '../support/redis-commands';
import { postgresPort, redisPort } from '../support/server-ports';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';

const LOCAL = 'http://localhost:5173';
const APP = 'https://app.push.example';
/** Every studio here but one sweeps once an hour: what reaches their streams came by push. */
const NO_SWEEP = { STUDIO_EVENTS_SWEEP_SECONDS: '3600' };

/**
 * The studio's server push across replicas (docs/architecture.md, "Server push"): every change
 * reaches every open stream on every studio replica from a broadcast sent once it commits, with
 * no per-stream work while nothing happens; expiry fires from a timer; a lost broadcast is
 * caught when the subscriber reconnects, and by the slow sweep.
 */
describe("the studio's server push", () => {
  const suite = setUpSuite({ worker: {}, org: { test: true } });
  const clock = new ManualClock();
  const pgCounter = new PgStatementCounter();
  const redisCounter = new RedisCommandCounter();
  const pgProxy = new TcpProxy('127.0.0.1', postgresPort(), pgCounter.feed);
  const redisProxy = new TcpProxy('127.0.0.1', redisPort(), redisCounter.feed);
  /** Reached through counting proxies. */
  let a: RunningHttpApp;
  let b: RunningHttpApp;
  /** Sweeps every second. */
  let sweeping: RunningHttpApp;
  /** On a clock the tests move. */
  let clocked: RunningHttpApp;
  let org: TestOrganization;
  let sceneId: string;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    const db = new URL(suite.env.databaseUrl);
    db.port = String(await pgProxy.start());
    const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis.port = String(await redisProxy.start());
    a = await startStudio(suite.env, { config: { ...NO_SWEEP, DATABASE_URL: db.toString(), REDIS_URL: redis.toString() } });
    b = await startStudio(suite.env, { config: NO_SWEEP });
    sweeping = await startStudio(suite.env, { config: { STUDIO_EVENTS_SWEEP_SECONDS: '1' } });
    clocked = await startStudio(suite.env, { config: NO_SWEEP, clock });
    org = await createOrganization(suite.api.app, { test: true, origins: [APP] });
    sceneId = await readyScene(suite.api, org);
  });

  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  afterAll(async () => {
    for (const studio of [a, b, sweeping, clocked]) await studio?.close();
    await pgProxy.cut();
    await redisProxy.cut();
  });

  async function session(opts: { scene?: string; mode?: string; origin?: string; expiresInSeconds?: number } = {}) {
    const res = await createEmbedSession(suite.api, org, {
      sceneId: opts.scene ?? sceneId,
      origin: opts.origin ?? LOCAL,
      mode: opts.mode ?? 'perform',
      ...(opts.expiresInSeconds ? { expiresInSeconds: opts.expiresInSeconds } : {}),
    });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId as string, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  async function open(studio: RunningHttpApp, bearer: Record<string, string>): Promise<SseClient> {
    const stream = await SseClient.open(`${studio.url}/studio-api/v1/events`, bearer);
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.next('scene.status');
    return stream;
  }

  /** Until the studio has read every stream it opened: what it is told from then on came from news. */
  const settled = (studio: RunningHttpApp) =>
    pollUntil(
      async () => studio.app.get(StudioEventsHub).held,
      (h) => !h.reading && h.pending === 0,
      { what: 'the studio to read its new streams' },
    );

  /** A session revoked in the database alone: no broadcast tells anyone (a publisher that died after its commit). */
  const revokeSilently = (id: string) =>
    suite.api.app.get(DataSource).query(`UPDATE embed_sessions SET revoked_at = now(), revoked_reason = 'revoked' WHERE id = $1`, [id]);

  it("a scene's deletion ends its streams on every replica at once, without reading a session", async () => {
    const doomed = await readyScene(suite.api, org);
    const [s1, s2] = [await session({ scene: doomed }), await session({ scene: doomed, mode: 'edit' })];
    const bystander = await session();
    const ending = [await open(a, s1.bearer), await open(b, s1.bearer), await open(a, s2.bearer), await open(b, s2.bearer)];
    const other = await open(b, bystander.bearer);
    await settled(a);
    await settled(b);
    const reads = [a, b].map((studio) => jest.spyOn(studio.app.get(EmbedSessionsService), 'watch'));
    try {
      const deletedAt = Date.now();
      expect((await suite.api.http().delete(`/v1/scenes/${doomed}`).set(org.auth)).status).toBe(204);
      for (const stream of ending) {
        const ended = await stream.next('session.ended', 2000);
        expect(ended.data).toEqual({ reason: 'revoked' });
        expect(ended.receivedAt - deletedAt).toBeLessThan(2000);
        await stream.done;
      }
      for (const read of reads) expect(read).not.toHaveBeenCalled();
      expect(other.closed).toBe(false);
      expect(other.events.map((e) => e.event)).not.toContain('session.ended');
    } finally {
      jest.restoreAllMocks();
    }
  });

  it("a session's revocation ends its streams on every replica; its scene's other sessions go on", async () => {
    const [doomed, kept] = [await session(), await session()];
    const ending = [await open(a, doomed.bearer), await open(b, doomed.bearer)];
    const going = [await open(a, kept.bearer), await open(b, kept.bearer)];
    expect((await suite.api.http().delete(`/v1/embed-sessions/${doomed.id}`).set(org.auth)).status).toBe(204);
    for (const stream of ending) expect((await stream.next('session.ended', 2000)).data).toEqual({ reason: 'revoked' });
    await settled(a);
    for (const stream of going) expect(stream.events.map((e) => e.event)).toEqual(['scene.status']);
  });

  it('removing an origin with the CLI ends its sessions’ streams on every replica', async () => {
    const [onApp, onLocal] = [await session({ origin: APP }), await session()];
    const ending = [await open(a, onApp.bearer), await open(b, onApp.bearer)];
    const going = await open(b, onLocal.bearer);
    const removed = await runCli(['origin', 'remove', '--org', org.organizationId, '--origin', APP, '--json'], {
      DATABASE_URL: suite.env.databaseUrl,
      QUEUE_PREFIX: suite.env.queuePrefix,
      LOG_LEVEL: 'warn',
    });
    expect(removed.code).toBe(0);
    for (const stream of ending) expect((await stream.next('session.ended', 2000)).data).toEqual({ reason: 'revoked' });
    expect(going.closed).toBe(false);
  });

  it('news that comes while a stream is being opened is not lost: the stream reads its session once indexed', async () => {
    // Between the guard's read of the session and the stream's indexing (its place is being
    // claimed in Redis) the session is revoked: the broadcast finds no stream to end.
    const s = await session();
    const slots = b.app.get(StreamSlots);
    const claim = slots.claim.bind(slots);
    let release = (): void => undefined;
    const claiming = new Promise<void>((inClaim) => {
      jest.spyOn(slots, 'claim').mockImplementationOnce(async (...args) => {
        inClaim();
        await new Promise<void>((r) => (release = r));
        return claim(...args);
      });
    });
    let heard = (): void => undefined;
    const revocationHeard = new Promise<void>((r) => (heard = r));
    const stopListening = b.app.get(EmbedSessionsService).listen((news) => {
      if (news.kind === 'ended' && news.sessionIds.includes(s.id)) heard();
    });
    try {
      const opening = SseClient.open(`${b.url}/studio-api/v1/events`, s.bearer);
      await claiming;
      expect((await suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(org.auth)).status).toBe(204);
      // The replica has heard the revocation, with the stream not yet open.
      await revocationHeard;
      release();
      const stream = await opening;
      streams.push(stream);
      expect(stream.status).toBe(200);
      expect((await stream.next('session.ended', 2000)).data).toEqual({ reason: 'revoked' });
    } finally {
      release();
      stopListening();
      jest.restoreAllMocks();
    }
  });

  it('an extension reaches every replica as session.updated', async () => {
    const s = await session({ expiresInSeconds: 600 });
    const both = [await open(a, s.bearer), await open(b, s.bearer)];
    const res = await suite.api.http().post(`/v1/embed-sessions/${s.id}:extend`).set(org.auth).send({ expiresInSeconds: 7200 });
    expect(res.status).toBe(200);
    for (const stream of both) expect((await stream.next('session.updated', 2000)).data).toEqual({ expiresAt: res.body.expiresAt });
  });

  it("a scene's new version and edit history reach the other replica's streams, each as its mode may see", async () => {
    const edited = await readyScene(suite.api, org);
    const editor = await session({ scene: edited, mode: 'edit' });
    const [watcher, performer] = [await session({ scene: edited, mode: 'edit' }), await session({ scene: edited })];
    const onB = [await open(b, watcher.bearer), await open(b, performer.bearer)];
    await settled(b);
    const started = await a.http().post('/studio-api/v1/edits').set(editor.bearer).send({ instruction: 'add fog' });
    expect(started.status).toBe(202);
    // The new turn, at once; then the new version once the worker commits it.
    expect((await onB[0].next('edit.updated', 2000)).data.turns).toEqual([expect.objectContaining({ instruction: 'add fog' })]);
    await awaitOperation(suite.api, org, started.body.operationId);
    for (const stream of onB) {
      await pollUntil(
        async () => stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data.version),
        (versions) => versions.includes(2),
        { what: 'version 2 to be pushed', timeoutMs: 2000 },
      );
    }
    expect(onB[1].events.map((e) => e.event)).not.toContain('edit.updated');
  });

  it('expiry fires from a timer at expiresAt; the studio reads nothing before it', async () => {
    const s = await session({ expiresInSeconds: 300 });
    clock.set(Date.now());
    const stream = await open(clocked, s.bearer);
    await settled(clocked);
    const [{ expires_at: expiresAt }] = await suite.api.app
      .get(DataSource)
      .query<{ expires_at: Date }[]>(`SELECT expires_at FROM embed_sessions WHERE id = $1`, [s.id]);
    const reads = jest.spyOn(clocked.app.get(EmbedSessionsService), 'watch');
    try {
      clock.set(expiresAt.getTime() - 1000);
      // Nothing is due: nothing is read, nothing is said (a timer would have fired at once).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reads).not.toHaveBeenCalled();
      expect(stream.events.map((e) => e.event)).toEqual(['scene.status']);
      clock.set(expiresAt);
      const movedAt = Date.now();
      const ended = await stream.next('session.ended', 2000);
      expect(ended.data).toEqual({ reason: 'expired' });
      expect(ended.receivedAt - movedAt).toBeLessThan(2000);
      // One read of the due session, which could have been extended meanwhile.
      expect(reads.mock.calls).toEqual([[[s.id]]]);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('a broadcast that never came: the sweep ends the stream; a studio that does not sweep yet hears it when its subscriber reconnects', async () => {
    const s = await session();
    const swept = await open(sweeping, s.bearer);
    const unswept = await open(b, s.bearer);
    await settled(b);
    await revokeSilently(s.id);
    expect((await swept.next('session.ended', 3000)).data).toEqual({ reason: 'revoked' });
    // The other replica sweeps once an hour: the revocation has not reached it…
    expect(unswept.closed).toBe(false);
    expect(unswept.events.map((e) => e.event)).toEqual(['scene.status']);
    // …until its subscriber's connection drops: it reads every open session again once re-subscribed.
    // One subscriber per process that listens here: the four studios.
    expect(await killBroadcastSubscribers(suite.api.app.get<Redis>(REDIS), suite.env.queuePrefix)).toBe(4);
    expect((await unswept.next('session.ended', 5000)).data).toEqual({ reason: 'revoked' });
  });

  it('costs no database or Redis work per stream while nothing happens', async () => {
    const sessions = await Promise.all(Array.from({ length: 30 }, () => session()));
    for (const s of sessions) await open(a, s.bearer);
    await settled(a);
    const statements = pgCounter.count;
    const commands = redisCounter.snapshot();
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(pgCounter.count - statements).toBe(0);
    // The process's own heartbeat (one script every 2.5 s) and its subscriber's ping (every 15 s): nothing per stream.
    const sent = redisCounter.since(commands);
    expect(Object.keys(sent).filter((name) => name !== 'eval' && name !== 'ping')).toEqual([]);
    expect(sent.eval ?? 0).toBeLessThanOrEqual(3);
    expect(sent.ping ?? 0).toBeLessThanOrEqual(1);
    expect(a.app.get(StudioEventsHub).openStreams).toBe(30);
  });
});
