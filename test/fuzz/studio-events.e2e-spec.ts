import { REDIS } from '@app/core';
import { SceneChanges } from '@app/operations';
import { EmbedSessionsService } from '@app/embed-sessions';
import { StreamSlots } from '@apps/studio/events/stream-slots';
import { StudioEventsHub } from '@apps/studio/events/studio-events.hub';
import { createHook } from 'node:async_hooks';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { createScene } from '../factories/scene.factory';
import { RunningHttpApp, startStudio } from '../support/apps';
import { broadcastSubscribers, killBroadcastSubscribers } from '../support/broadcast-subscribers';
import { pollUntil } from '../support/poll';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';
const MODES = ['edit', 'perform', 'edit_and_perform'] as const;

type Action =
  | { kind: 'open'; session: number; studio: number }
  | { kind: 'close'; stream: number }
  | { kind: 'revoke'; session: number }
  | { kind: 'extend'; session: number }
  | { kind: 'delete-scene'; scene: number }
  | { kind: 'scene-news'; scene: number }
  | { kind: 'gap' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('open' as const), session: fc.nat(9), studio: fc.nat(1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('close' as const), stream: fc.nat(60) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revoke' as const), session: fc.nat(9) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('extend' as const), session: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete-scene' as const), scene: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('scene-news' as const), scene: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'gap' as const }) },
);

interface Opened {
  session: number;
  client: SseClient;
  closedByUs: boolean;
  /** When its open was answered (its first event in). */
  openedAt: number;
}

/**
 * The push path under a storm (docs/architecture.md, "Server push"): streams open and close on two
 * studio replicas while news arrives — revocations, extensions, scene deletions, scene changes
 * that change nothing, subscriber reconnections — all drawn from a seed, several seeds at once.
 * Afterwards each stream was told exactly what its session became, and neither studio holds a
 * stream, a session, a timer, a read or a connection for any of it.
 */
describe('fuzz: the studio’s event streams under news', () => {
  const suite = setUpSuite({ org: { test: true } });
  let studios: RunningHttpApp[];
  /** Every connection each studio accepted. */
  const connections = new Map<Server, Set<Socket>>();

  beforeAll(async () => {
    studios = [
      await startStudio(suite.env, { config: { STUDIO_EVENTS_SWEEP_SECONDS: '3600' } }),
      await startStudio(suite.env, { config: { STUDIO_EVENTS_SWEEP_SECONDS: '3600' } }),
    ];
    for (const studio of studios) {
      const server = studio.app.getHttpServer() as Server;
      const accepted = new Set<Socket>();
      connections.set(server, accepted);
      server.on('connection', (socket: Socket) => accepted.add(socket));
    }
  });

  afterAll(async () => {
    for (const s of studios ?? []) await s.close();
  });

  const killSubscribers = () => killBroadcastSubscribers(suite.api.app.get<Redis>(REDIS), suite.env.queuePrefix);

  async function storm(seed: number): Promise<{ opened: number; ended: number }> {
    const actions = fc.sample(action, { seed, numRuns: 60 });
    const pauses = fc.sample(fc.integer({ min: 0, max: 60 }), { seed: seed + 1, numRuns: 60 });
    const scenes = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const created = await createScene(suite.api, suite.org, { prompt: `storm ${seed} ${i}` });
        return (await suite.api.app.get(DataSource).query(`SELECT scene_id FROM operations WHERE id = $1`, [created.body.operationId]))[0]
          .scene_id as string;
      }),
    );
    const sessions = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await createEmbedSession(suite.api, suite.org, { sceneId: scenes[i % 3], origin: ORIGIN, mode: MODES[i % 3] });
        expect(res.status).toBe(201);
        return {
          id: res.body.embedSessionId as string,
          scene: i % 3,
          bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` },
          extendedAt: 0,
        };
      }),
    );
    const opened: Opened[] = [];
    const inFlight: Promise<unknown>[] = [];
    for (const [i, a] of actions.entries()) {
      switch (a.kind) {
        case 'open': {
          const s = sessions[a.session];
          inFlight.push(
            SseClient.open(`${studios[a.studio].url}/studio-api/v1/events`, s.bearer).then(async (client) => {
              // Ended already (401), or at its limit of five (429): nothing was opened.
              if (client.status !== 200) return expect([401, 429]).toContain(client.status);
              const entry: Opened = { session: a.session, client, closedByUs: false, openedAt: 0 };
              opened.push(entry);
              const first = await client.next('scene.status', 5000).catch(() => null);
              entry.openedAt = first?.receivedAt ?? Date.now();
            }),
          );
          break;
        }
        case 'close': {
          const entry = opened[a.stream % Math.max(1, opened.length)];
          if (entry) {
            entry.closedByUs = true;
            entry.client.close();
          }
          break;
        }
        case 'revoke':
          inFlight.push(suite.api.http().delete(`/v1/embed-sessions/${sessions[a.session].id}`).set(suite.org.auth));
          break;
        case 'extend': {
          const s = sessions[a.session];
          const startedAt = Date.now();
          inFlight.push(
            suite.api
              .http()
              .post(`/v1/embed-sessions/${s.id}:extend`)
              .set(suite.org.auth)
              .send({ expiresInSeconds: 3600 + i })
              .then((res) => {
                if (res.status === 200) s.extendedAt = Math.max(s.extendedAt, startedAt);
              }),
          );
          break;
        }
        case 'delete-scene':
          inFlight.push(suite.api.http().delete(`/v1/scenes/${scenes[a.scene]}`).set(suite.org.auth));
          break;
        case 'scene-news':
          studios[i % 2].app.get(SceneChanges).changed(scenes[a.scene]);
          break;
        case 'gap':
          inFlight.push(killSubscribers());
          break;
      }
      await new Promise((resolve) => setTimeout(resolve, pauses[i]));
    }
    await Promise.all(inFlight);

    // What each session became, by the database.
    const rows: Array<{ id: string; ended: boolean; expires_at: Date }> = await suite.api.app.get(DataSource).query(
      `SELECT es.id, (es.revoked_at IS NOT NULL OR s.deleted_at IS NOT NULL) AS ended, es.expires_at
         FROM embed_sessions es JOIN scenes s ON s.id = es.scene_id WHERE es.id = ANY($1)`,
      [sessions.map((s) => s.id)],
    );
    const state = new Map(rows.map((r) => [r.id, r]));
    for (const entry of opened.filter((o) => !o.closedByUs)) {
      const s = sessions[entry.session];
      const final = state.get(s.id)!;
      if (final.ended) {
        expect((await entry.client.next('session.ended', 5000)).data).toEqual({ reason: 'revoked' });
        await entry.client.done;
        continue;
      }
      expect(entry.client.events.map((e) => e.event)).not.toContain('session.ended');
      expect(entry.client.closed).toBe(false);
      // An extension asked for once the stream was open (the guard's read cannot have seen it):
      // the last expiry the stream was told is the session's last.
      if (s.extendedAt > entry.openedAt) {
        await pollUntil(
          async () => entry.client.events.filter((e) => e.event === 'session.updated').at(-1)?.data.expiresAt,
          (told) => told === final.expires_at.toISOString(),
          { what: `stream of ${s.id} to hear its last expiry`, timeoutMs: 5000 },
        );
      }
      // Never the edit history in perform mode.
      if (MODES[entry.session % 3] === 'perform') expect(entry.client.events.map((e) => e.event)).not.toContain('edit.updated');
    }
    // The rest end with their sessions.
    await Promise.all(sessions.map((s) => suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth)));
    for (const entry of opened.filter((o) => !o.closedByUs)) {
      await entry.client.next('session.ended', 5000);
      await entry.client.done;
    }
    return { opened: opened.length, ended: rows.filter((r) => r.ended).length };
  }

  /**
   * The timers made while `work` runs by the studio's push code (the hub, the places, the
   * broadcasts) that are still set afterwards, by where they were made.
   */
  async function timersLeftBy(work: () => Promise<void>): Promise<string[]> {
    const made = new Map<number, string>();
    const hook = createHook({
      init(id, type) {
        if (type === 'Timeout') made.set(id, new Error().stack ?? '');
      },
      destroy(id) {
        made.delete(id);
      },
    });
    hook.enable();
    try {
      await work();
    } finally {
      hook.disable();
    }
    // Where each was made: the frame that called setTimeout or setInterval.
    const makers = [...made.values()].map((stack) => {
      const frames = stack.split('\n');
      const call = frames.findIndex((f) => /at (setTimeout|setInterval) \(node:timers/.test(f));
      return frames[call + 1] ?? '';
    });
    return makers.filter((frame) => /apps\/studio\/src\/events\/|libs\/core\/src\/(redis|clock)\/|libs\/embed-sessions\/src\//.test(frame));
  }

  it('three seeds at once: every stream hears what its session became, and nothing is left behind', async () => {
    // Reads and claims made slow (a loaded database and Redis), by amounts drawn from the seeds, so
    // that news lands between a stream's authentication and its indexing, and during reads.
    const lags = fc.sample(fc.integer({ min: 0, max: 120 }), { seed: 7, numRuns: 64 });
    let lagged = 0;
    const lag = () => new Promise((resolve) => setTimeout(resolve, lags[lagged++ % lags.length]));
    for (const studio of studios) {
      const slots = studio.app.get(StreamSlots);
      const claim = slots.claim.bind(slots);
      jest.spyOn(slots, 'claim').mockImplementation(async (...args) => (await lag(), claim(...args)));
      const sessions = studio.app.get(EmbedSessionsService);
      const watch = sessions.watch.bind(sessions);
      jest.spyOn(sessions, 'watch').mockImplementation(async (ids) => (await lag(), watch(ids)));
    }
    let runs: Array<{ opened: number; ended: number }> = [];
    const left = await timersLeftBy(async () => {
      runs = await Promise.all([101, 202, 303].map(storm));
    });
    jest.restoreAllMocks();
    // The storms did what they are for: many streams, sessions ended under them.
    for (const run of runs) {
      expect(run.opened).toBeGreaterThanOrEqual(10);
      expect(run.ended).toBeGreaterThanOrEqual(1);
    }
    for (const studio of studios) {
      const hub = studio.app.get(StudioEventsHub);
      await pollUntil(
        async () => ({ open: hub.openStreams, ...hub.held }),
        (h) => h.open === 0 && h.sessions === 0 && h.expiries === 0 && h.pending === 0 && h.releasing === 0 && !h.reading && h.timers === 0,
        { what: 'the hub to hold nothing', timeoutMs: 10_000 },
      );
      // No response is still open: once the idle keep-alive connections are closed, none is left.
      const server = studio.app.getHttpServer() as Server;
      server.closeIdleConnections();
      // Every connection that sent a request is closed; one the client opened and never used
      // (undici's, for a request it aborted first) waits for the headers timeout, as any would.
      await pollUntil(
        async () => [...connections.get(server)!].filter((socket) => socket.bytesRead > 0 && !socket.destroyed).length,
        (n) => n === 0,
        { what: 'the studio to hold no connection', timeoutMs: 5000 },
      );
    }
    // No timer the push code set during the storms is still set.
    expect(left).toEqual([]);
    // Two subscribers, one per studio, however often they were killed.
    expect(await broadcastSubscribers(suite.api.app.get<Redis>(REDIS), suite.env.queuePrefix)).toHaveLength(2);
  });
});
