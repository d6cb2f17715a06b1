import { loadConfig, ManualClock } from '@app/core';
import { EmbedMode, EmbedSessionsService, SessionNews, SessionWithScene, WatchedScene, WatchedState } from '@app/embed-sessions';
import { SceneOperationsService } from '@app/operations';
import { SceneState } from '@app/operations';
import type { Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { StreamSlots } from './stream-slots';
import { HEARTBEAT_MS, StudioEventsHub } from './studio-events.hub';
import { StudioStreamMetrics } from './studio-stream-metrics';

/** A response as the hub uses it: what was written, and how it ended. */
class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  head: Record<string, string> | null = null;
  ended = false;
  destroyed = false;
  socket = { destroyed: false, destroySoon: jest.fn() };

  writeHead(_status: number, headers: Record<string, string>): this {
    this.head = headers;
    return this;
  }

  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }

  end(a?: string | (() => void), b?: () => void): this {
    const [data, cb] = typeof a === 'function' ? [undefined, a] : [a, b];
    if (data) this.chunks.push(data);
    this.ended = true;
    cb?.();
    this.emit('close');
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }

  /** The events written, parsed. */
  events(): Array<{ type: string; data: any }> {
    return this.chunks
      .filter((c) => c.startsWith('event: '))
      .map((c) => {
        const [type, data] = c.split('\n');
        return { type: type.slice(7), data: JSON.parse(data.slice(6)) };
      });
  }

  types(): string[] {
    return this.events().map((e) => e.type);
  }
}

const HOUR = 3600_000;

describe(StudioEventsHub.name, () => {
  const clock = new ManualClock(Date.parse('2026-11-28T10:00:00Z'));
  let news: ((n: SessionNews) => void) | null;
  let sessionStates: Map<string, WatchedState>;
  let sceneStates: Map<string, WatchedScene>;
  let watch: jest.Mock;
  let watchScenes: jest.Mock;
  let editTurns: jest.Mock;
  let slots: {
    limit: number;
    newStreamId: () => string;
    claim: jest.Mock;
    release: jest.Mock;
    prolong: jest.Mock;
    start: jest.Mock;
    stop: jest.Mock;
  };
  let metrics: { countOpenStreams: jest.Mock; sent: jest.Mock; ended: jest.Mock };
  let sut: StudioEventsHub;
  let ids = 0;

  const scene = (id: string, over: Partial<SceneState> = {}): SceneState => ({
    id,
    deleted: false,
    status: 'ready',
    version: 1,
    sourceAssetId: null,
    progress: null,
    stage: null,
    error: null,
    ...over,
  });

  beforeEach(() => {
    news = null;
    sessionStates = new Map();
    sceneStates = new Map();
    watch = jest.fn(async (list: string[]) => list.flatMap((id) => (sessionStates.has(id) ? [sessionStates.get(id)!] : [])));
    watchScenes = jest.fn(async (list: string[]) => list.flatMap((id) => (sceneStates.has(id) ? [sceneStates.get(id)!] : [])));
    editTurns = jest.fn(async () => [{ operationId: 'op_1', instruction: 'add fog' }]);
    slots = {
      limit: 5,
      newStreamId: () => `p:${++ids}`,
      claim: jest.fn(async () => true),
      release: jest.fn(async () => undefined),
      prolong: jest.fn(async () => undefined),
      start: jest.fn(),
      stop: jest.fn(async () => undefined),
    };
    const sessions = {
      listen: (fn: (n: SessionNews) => void) => {
        news = fn;
        return () => (news = null);
      },
      watch,
      watchScenes,
    } as unknown as EmbedSessionsService;
    metrics = { countOpenStreams: jest.fn(), sent: jest.fn(), ended: jest.fn() };
    sut = new StudioEventsHub(
      sessions,
      { editTurns } as unknown as SceneOperationsService,
      slots as unknown as StreamSlots,
      clock,
      loadConfig({}, {}),
      metrics as unknown as StudioStreamMetrics,
    );
    sut.onApplicationBootstrap();
  });

  afterEach(async () => {
    await sut.beforeApplicationShutdown();
    jest.useRealTimers();
  });

  /** Until the hub has nothing left to read. */
  async function settled(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!sut.held.reading && sut.held.pending === 0) return;
    }
    throw new Error('the hub kept reading');
  }

  /** A session of `sceneId` in `mode`, known to the fake database, and its stream opened. */
  async function open(sessionId: string, sceneId: string, mode: EmbedMode = 'perform', expiresAt = clock.now().getTime() + HOUR) {
    const state: WatchedState = {
      id: sessionId,
      revokedAt: null,
      expiresAt: new Date(expiresAt),
      scene: scene(sceneId),
      editsUpdatedAt: null,
    };
    sessionStates.set(sessionId, state);
    sceneStates.set(sceneId, { scene: state.scene, editsUpdatedAt: null });
    const found = { session: { id: sessionId, mode, expiresAt: new Date(expiresAt) }, scene: state.scene } as unknown as SessionWithScene;
    const res = new FakeResponse();
    const req = { requestId: 'req', studioSession: found } as unknown as Request;
    await sut.open(found, req, res as unknown as Response);
    expect((req as { studioSession?: unknown }).studioSession).toBeUndefined();
    return res;
  }

  it('opens with the scene status, reads the session once indexed, and does nothing more while nothing happens', async () => {
    const res = await open('es_a', 'sc_1');
    expect(res.head?.['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.events()).toEqual([
      { type: 'scene.status', data: { status: 'ready', version: 1, progress: null, stage: null, error: null } },
    ]);
    await settled();
    expect(watch).toHaveBeenCalledTimes(1);
    expect(watch).toHaveBeenCalledWith(['es_a']);
    // Nothing changed: nothing more written, nothing more read.
    await settled();
    expect(res.events()).toHaveLength(1);
    expect(watch).toHaveBeenCalledTimes(1);
    expect(watchScenes).not.toHaveBeenCalled();
  });

  it('ends the streams of an ended session at once, without a read, and gives their places back together', async () => {
    const a1 = await open('es_a', 'sc_1');
    const a2 = await open('es_a', 'sc_1');
    const b = await open('es_b', 'sc_1');
    await settled();
    watch.mockClear();
    const revokedAt = new Date(clock.now().getTime() - 40);
    news!({ kind: 'ended', reason: 'revoked', sessionIds: ['es_a', 'es_unknown'], at: revokedAt });
    for (const r of [a1, a2]) {
      expect(r.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'revoked' } });
      expect(r.ended).toBe(true);
    }
    // Each stream told counts once in the metrics, measured from the revoking commit.
    expect(metrics.ended.mock.calls).toEqual([
      ['revoked', revokedAt, clock.now()],
      ['revoked', revokedAt, clock.now()],
    ]);
    expect(metrics.sent.mock.calls.filter(([type]) => type === 'session.ended')).toHaveLength(2);
    expect(b.ended).toBe(false);
    expect(sut.openStreams).toBe(1);
    await settled();
    expect(watch).not.toHaveBeenCalled();
    expect(slots.release).toHaveBeenCalledWith([
      expect.objectContaining({ sessionId: 'es_a' }),
      expect.objectContaining({ sessionId: 'es_a' }),
    ]);
  });

  it("ends every stream of a deleted scene, and only that scene's", async () => {
    const streams = await Promise.all(['es_a', 'es_b', 'es_c'].map((id) => open(id, 'sc_1')));
    const other = await open('es_d', 'sc_2');
    news!({ kind: 'scene-ended', reason: 'revoked', sceneId: 'sc_1', at: null });
    for (const r of streams) expect(r.types().at(-1)).toBe('session.ended');
    expect(other.ended).toBe(false);
    expect(sut.held.sessions).toBe(1);
  });

  it('reads a changed scene once, tells each stream what moved, and gives the edit history only to the edit modes', async () => {
    const perform = await open('es_p', 'sc_1', 'perform');
    const edit = await open('es_e', 'sc_1', 'edit');
    const edit2 = await open('es_e2', 'sc_1', 'edit_and_perform');
    await open('es_x', 'sc_2');
    await settled();
    // News of a scene no stream here shows costs nothing.
    news!({ kind: 'scene-changed', sceneId: 'sc_9' });
    await settled();
    expect(watchScenes).not.toHaveBeenCalled();

    sceneStates.set('sc_1', { scene: scene('sc_1', { version: 2 }), editsUpdatedAt: new Date(clock.now().getTime() + 1) });
    news!({ kind: 'scene-changed', sceneId: 'sc_1' });
    news!({ kind: 'scene-changed', sceneId: 'sc_1' });
    await settled();
    expect(watchScenes).toHaveBeenCalledTimes(1);
    expect(watchScenes).toHaveBeenCalledWith(['sc_1']);
    expect(editTurns).toHaveBeenCalledTimes(1);
    expect(perform.types()).toEqual(['scene.status', 'scene.status']);
    expect(perform.events()[1].data.version).toBe(2);
    for (const r of [edit, edit2]) {
      expect(r.types()).toEqual(['scene.status', 'scene.status', 'edit.updated']);
      expect(r.events()[2].data).toEqual({ turns: [{ operationId: 'op_1', instruction: 'add fog' }] });
    }
    // The same state again tells nobody anything.
    news!({ kind: 'scene-changed', sceneId: 'sc_1' });
    await settled();
    expect(edit.types()).toHaveLength(3);
    expect(perform.types()).toHaveLength(2);
  });

  it('judges only the streams a read asked about: one opened while it is in flight waits for its own', async () => {
    await open('es_a', 'sc_1');
    let release = (): void => undefined;
    watch.mockImplementationOnce(async (list: string[]) => {
      await new Promise<void>((r) => (release = r));
      return list.flatMap((id) => (sessionStates.has(id) ? [sessionStates.get(id)!] : []));
    });
    // A read of es_a is in flight (the first stream's own read)…
    await new Promise((resolve) => setImmediate(resolve));
    expect(sut.held.reading).toBe(true);
    // …when es_b opens; the read of es_a knows nothing of it.
    const late = await open('es_b', 'sc_1');
    release();
    await settled();
    expect(watch.mock.calls).toEqual([[['es_a']], [['es_b']]]);
    expect(late.types()).toEqual(['scene.status']);
    expect(late.ended).toBe(false);
  });

  it('ends a session a read no longer finds (erased after its end), and one whose scene was deleted', async () => {
    const gone = await open('es_gone', 'sc_1');
    const deleted = await open('es_del', 'sc_2');
    sessionStates.delete('es_gone');
    sessionStates.set('es_del', { ...sessionStates.get('es_del')!, scene: scene('sc_2', { deleted: true }) });
    news!({ kind: 'changed', sessionIds: ['es_gone', 'es_del'] });
    await settled();
    expect(gone.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'revoked' } });
    expect(deleted.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'revoked' } });
  });

  it('tells the page of an extension, prolongs the places, and moves the expiry timer', async () => {
    const expiresAt = clock.now().getTime() + 600_000;
    const res = await open('es_a', 'sc_1', 'perform', expiresAt);
    await settled();
    const later = expiresAt + HOUR;
    sessionStates.set('es_a', { ...sessionStates.get('es_a')!, expiresAt: new Date(later) });
    news!({ kind: 'changed', sessionIds: ['es_a'] });
    await settled();
    expect(res.events().at(-1)).toEqual({ type: 'session.updated', data: { expiresAt: new Date(later).toISOString() } });
    expect(slots.prolong).toHaveBeenCalledWith('es_a', later);
    // The old expiry passes: nothing happens.
    clock.set(expiresAt + 1);
    await settled();
    expect(res.ended).toBe(false);
    // The new one: the session is read, found expired, and ended.
    clock.set(later);
    await settled();
    expect(res.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'expired' } });
  });

  it('ends expiring sessions from one timer; reads them first, so a lost extension keeps its studio', async () => {
    const now = clock.now().getTime();
    const a = await open('es_a', 'sc_1', 'perform', now + 1000);
    const b = await open('es_b', 'sc_1', 'perform', now + 1000);
    const c = await open('es_c', 'sc_1', 'perform', now + 5000);
    await settled();
    watch.mockClear();
    // b was extended, and the news never came.
    sessionStates.set('es_b', { ...sessionStates.get('es_b')!, expiresAt: new Date(now + HOUR) });
    clock.advance(1000);
    await settled();
    expect(watch).toHaveBeenCalledTimes(1);
    expect(new Set(watch.mock.calls[0][0])).toEqual(new Set(['es_a', 'es_b']));
    expect(a.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'expired' } });
    expect(metrics.ended).toHaveBeenCalledWith('expired', new Date(now + 1000), clock.now());
    expect(b.types().at(-1)).toBe('session.updated');
    expect(b.ended).toBe(false);
    expect(c.ended).toBe(false);
    clock.advance(4000);
    await settled();
    expect(c.types().at(-1)).toBe('session.ended');
  });

  it('ends an expiring session by what it knows when the database cannot answer', async () => {
    const res = await open('es_a', 'sc_1', 'perform', clock.now().getTime() + 1000);
    await settled();
    watch.mockRejectedValueOnce(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
    clock.advance(1000);
    await settled();
    expect(res.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'expired' } });
  });

  it('reads every open session again after a gap in the news', async () => {
    await open('es_a', 'sc_1');
    const b = await open('es_b', 'sc_2');
    await settled();
    watch.mockClear();
    sessionStates.set('es_b', { ...sessionStates.get('es_b')!, revokedAt: clock.now() });
    news!({ kind: 'gap' });
    await settled();
    expect(watch).toHaveBeenCalledTimes(1);
    expect(new Set(watch.mock.calls[0][0])).toEqual(new Set(['es_a', 'es_b']));
    expect(b.events().at(-1)).toEqual({ type: 'session.ended', data: { reason: 'revoked' } });
  });

  it('writes one comment line per stream every 15 s from one timer, and keeps no timer once none is open', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const a = await open('es_a', 'sc_1');
    const b = await open('es_b', 'sc_1');
    expect(sut.held.timers).toBe(2); // the heartbeat and the expiry
    jest.advanceTimersByTime(HEARTBEAT_MS);
    await new Promise((resolve) => setImmediate(resolve));
    for (const r of [a, b]) expect(r.chunks.filter((c) => c === ': keep-alive\n\n')).toHaveLength(1);
    a.destroy();
    b.destroy();
    expect(sut.openStreams).toBe(0);
    expect(sut.held).toMatchObject({ sessions: 0, expiries: 0, timers: 0 });
  });

  it('refuses a stream past the limit with 429 and a Retry-After, and gives back the place of a page already gone', async () => {
    slots.claim.mockResolvedValueOnce(false);
    await expect(open('es_a', 'sc_1')).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 10 });
    const gone = new FakeResponse();
    gone.socket.destroyed = true;
    const found = { session: { id: 'es_b', mode: 'perform', expiresAt: new Date(clock.now().getTime() + HOUR) }, scene: scene('sc_1') };
    await sut.open(found as unknown as SessionWithScene, { requestId: 'r' } as Request, gone as unknown as Response);
    expect(gone.head).toBeNull();
    await settled();
    expect(slots.release).toHaveBeenCalledWith([expect.objectContaining({ sessionId: 'es_b' })]);
    expect(sut.openStreams).toBe(0);
  });

  it('at shutdown, drops every stream and gives every place back before Redis closes', async () => {
    const a = await open('es_a', 'sc_1');
    const b = await open('es_b', 'sc_2');
    await sut.beforeApplicationShutdown();
    expect(a.destroyed && b.destroyed).toBe(true);
    expect(slots.release).toHaveBeenCalledWith(
      expect.arrayContaining([expect.objectContaining({ sessionId: 'es_a' }), expect.objectContaining({ sessionId: 'es_b' })]),
    );
    expect(slots.stop).toHaveBeenCalled();
    expect(news).toBeNull();
    expect(sut.held).toMatchObject({ sessions: 0, expiries: 0, pending: 0, timers: 0 });
  });
});
