import { AppConfig, Clock, ClockTimer, DomainError, ErrorCode, isInfrastructureError } from '@app/core';
import {
  EmbedSessionsService,
  endedReason,
  EndedReason,
  SessionNews,
  SessionWithScene,
  StudioView,
  WatchedScene,
  WatchedState,
} from '@app/embed-sessions';
import { SceneOperationsService } from '@app/operations';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Request, Response } from 'express';
import { STUDIO_CONFIG } from '../studio.config';
import { EventStream } from './event-stream';
import { ExpiryQueue } from './expiry-queue';
import { OpenStreams } from './open-streams';
import { STREAM_LEASE_MS, StreamSlot, StreamSlots } from './stream-slots';
import { StudioStreamMetrics } from './studio-stream-metrics';

/** A comment line this often keeps proxies from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;
/** Sessions or scenes read in one query. */
const READ_BATCH = 1000;
/** Streams written in one turn of the event loop by the heartbeat, so it never stalls requests. */
const WRITE_BATCH = 1000;
/** How soon a read that failed (PostgreSQL away) is tried again. */
const RETRY_MS = 1000;

/**
 * The studio's server push (docs/architecture.md, "Server push"). Each process keeps its open
 * streams indexed by session and by scene, and acts only when something happens:
 * - news from any process (SessionChanges, Redis pub/sub, sent once a change commits): a session
 *   or a scene's sessions ended → told and closed at once, without a read; a session or a scene
 *   changed → that session or scene is read again (one query per batch), and its streams are told
 *   what moved (`scene.status`, `edit.updated` for the edit modes, `session.updated`);
 * - a session's expiry: one clock timer at the earliest `expiresAt` of the open sessions;
 * - a stream opening: its session is read once it is indexed, so news that came between the
 *   guard's read and then is not lost (a read applies only to the streams that were open when it
 *   was asked, so a stream opening meanwhile is never taken for a revoked one);
 * - a gap in the news (the subscriber reconnected): every open session is read again;
 * - the sweep, every STUDIO_EVENTS_SWEEP_SECONDS: every open session is read again, in batches,
 *   for news a publisher failed to send (it died between its commit and its publish).
 * Nothing is done per stream while nothing happens but one comment line per stream every 15 s,
 * written by one timer. A session holds at most STUDIO_EVENT_STREAMS_PER_SESSION streams across
 * replicas (StreamSlots); every way a stream ends gives its place back. Each event passes the
 * session's StudioView: a perform stream never carries the edit history.
 */
@Injectable()
export class StudioEventsHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(StudioEventsHub.name);
  private readonly streams = new OpenStreams<EventStream>();
  private readonly expiries = new ExpiryQueue();
  private readonly sweepMs: number;
  private expiryTimer: { at: number; timer: ClockTimer } | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;
  /** Sessions and scenes to read again, and the sessions among them whose expiry came. */
  private readonly pendingSessions = new Set<string>();
  private readonly pendingScenes = new Set<string>();
  private readonly expiring = new Set<string>();
  /** What a failed read leaves to read again in a second. */
  private readonly retrySessions = new Set<string>();
  private readonly retryScenes = new Set<string>();
  private reading = false;
  private readonly releasing: StreamSlot[] = [];
  private closed = false;

  constructor(
    private readonly sessions: EmbedSessionsService,
    private readonly sceneOperations: SceneOperationsService,
    private readonly slots: StreamSlots,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly metrics: StudioStreamMetrics,
  ) {
    this.sweepMs = config.slice(STUDIO_CONFIG).eventsSweepSeconds * 1000;
    metrics.countOpenStreams(() => this.streams.size);
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** What the hub holds besides open streams (a test's check that nothing is left behind). */
  get held(): { sessions: number; expiries: number; pending: number; releasing: number; reading: boolean; timers: number } {
    return {
      reading: this.reading,
      timers: [this.heartbeat, this.retryTimer, this.expiryTimer].filter((t) => t !== null).length,
      sessions: this.streams.sessionCount,
      expiries: this.expiries.size,
      pending: this.pendingSessions.size + this.pendingScenes.size + this.expiring.size + this.retrySessions.size + this.retryScenes.size,
      releasing: this.releasing.length,
    };
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.sessions.listen((news) => this.hear(news));
    this.slots.start();
    this.sweeper = setInterval(() => this.sweep(), this.sweepMs);
    this.sweeper.unref();
  }

  /** Opens the page's stream, once it has one of the session's places: `429 rate_limited` when they are taken. */
  async open({ session, scene }: SessionWithScene, req: Request, raw: Response): Promise<void> {
    const slot: StreamSlot = { sessionId: session.id, streamId: this.slots.newStreamId() };
    const expiresAt = session.expiresAt.getTime();
    if (!(await this.slots.claim(slot, expiresAt, this.streams.ofSession(session.id).size))) {
      throw new DomainError(
        ErrorCode.RateLimited,
        `This session already has ${this.slots.limit} open event streams, its limit. Close one, or retry after the indicated delay.`,
        { retryAfterSeconds: STREAM_LEASE_MS / 1000 },
      );
    }
    // The page went away while its place was taken, or the process is stopping: give it back at once.
    if (this.closed || raw.destroyed || !raw.socket || raw.socket.destroyed) {
      if (this.closed) raw.destroy();
      return this.releaseSoon(slot);
    }
    const stream = EventStream.open(slot, StudioView.of(session.mode), scene, expiresAt, req, raw, (type) => this.metrics.sent(type));
    this.streams.add(stream);
    stream.onClose(() => this.forget(stream));
    this.watchExpiry(session.id, expiresAt);
    this.heartbeat ??= setInterval(() => this.keepAlive(), HEARTBEAT_MS);
    // Read once indexed: what changed since the guard's read (and the edit history, for the edit modes).
    this.readLater([session.id], []);
  }

  /** Before the HTTP server closes: it waits for open connections, and streams never end on their own. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    this.stopListening = null;
    for (const timer of [this.heartbeat, this.sweeper, this.retryTimer]) if (timer) clearTimeout(timer);
    this.heartbeat = this.sweeper = this.retryTimer = null;
    this.expiryTimer?.timer.cancel();
    this.expiryTimer = null;
    const closing = this.streams.all();
    for (const s of closing) {
      this.unindex(s);
      s.destroy();
    }
    for (const set of [this.pendingSessions, this.pendingScenes, this.expiring, this.retrySessions, this.retryScenes]) set.clear();
    // Before Redis closes: the places are free at once for the pages reconnecting elsewhere.
    await this.release([...this.releasing.splice(0), ...closing]);
    try {
      await this.slots.stop();
    } catch (e) {
      this.logQuietly(e, 'removing the stream heartbeat failed');
    }
  }

  // ---- news -----------------------------------------------------------------------------------

  private hear(news: SessionNews): void {
    switch (news.kind) {
      case 'ended':
        return this.endAll(
          news.sessionIds.flatMap((id) => [...this.streams.ofSession(id)]),
          news.reason,
          news.at,
        );
      case 'scene-ended':
        return this.endAll([...this.streams.ofScene(news.sceneId)], news.reason, news.at);
      case 'changed':
        return this.readLater(
          news.sessionIds.filter((id) => this.streams.ofSession(id).size > 0),
          [],
        );
      case 'scene-changed':
        if (this.streams.hasScene(news.sceneId)) this.readLater([], [news.sceneId]);
        return;
      case 'gap':
        if (this.streams.size > 0)
          this.logger.log(`news may have been missed: reading the ${this.streams.sessionCount} open sessions again`);
        return this.readLater(this.streams.sessionIds(), []);
    }
  }

  /** The safety net for news lost on the way: every open session read again, in batches. */
  private sweep(): void {
    this.readLater(this.streams.sessionIds(), []);
  }

  // ---- expiry ---------------------------------------------------------------------------------

  private watchExpiry(sessionId: string, at: number): void {
    if (this.expiries.set(sessionId, at)) this.armExpiry();
  }

  /** One timer, at the earliest expiry of the open sessions. */
  private armExpiry(): void {
    const next = this.expiries.next();
    if (this.expiryTimer?.at === next) return;
    this.expiryTimer?.timer.cancel();
    this.expiryTimer = next === null || this.closed ? null : { at: next, timer: this.clock.at(new Date(next), () => this.expire()) };
  }

  /** Due sessions are read before they are ended: an extension whose news was lost keeps its studio. */
  private expire(): void {
    this.expiryTimer = null;
    const due = this.expiries.takeDue(this.clock.now().getTime());
    for (const id of due) this.expiring.add(id);
    this.readLater(due, []);
    this.armExpiry();
  }

  // ---- reads ----------------------------------------------------------------------------------

  private readLater(sessionIds: string[], sceneIds: string[]): void {
    for (const id of sessionIds) this.pendingSessions.add(id);
    for (const id of sceneIds) this.pendingScenes.add(id);
    if (this.reading || this.closed || (this.pendingSessions.size === 0 && this.pendingScenes.size === 0)) return;
    this.reading = true;
    setImmediate(() => void this.readPending());
  }

  /**
   * One read at a time, so what a page is told never goes back to an older state: sessions first
   * (with their scenes), then scenes, each in batches; what arrives meanwhile waits for the next turn.
   */
  private async readPending(): Promise<void> {
    try {
      while (!this.closed && (this.pendingSessions.size > 0 || this.pendingScenes.size > 0)) {
        const sessionIds = take(this.pendingSessions, READ_BATCH);
        if (sessionIds.length > 0) await this.readSessions(sessionIds);
        const sceneIds = take(this.pendingScenes, READ_BATCH);
        if (sceneIds.length > 0) await this.readScenes(sceneIds);
      }
    } finally {
      this.reading = false;
    }
  }

  private async readSessions(ids: string[]): Promise<void> {
    // The streams open now, and only those: one opened while the read is in flight was not asked about.
    const asked: Array<[string, EventStream[]]> = ids.map((id) => [id, [...this.streams.ofSession(id)]]);
    let states: Map<string, WatchedState>;
    try {
      states = new Map((await this.sessions.watch(ids)).map((s) => [s.id, s]));
    } catch (e) {
      this.logQuietly(e, 'reading open sessions failed');
      return this.readFailed(ids, asked);
    }
    const now = this.clock.now();
    const history = new Map<string, EventStream[]>();
    for (const [id, streams] of asked) {
      this.expiring.delete(id);
      const state = states.get(id);
      for (const stream of streams) {
        if (!this.streams.has(stream)) continue;
        // A session that is gone (erased after its end) ended too.
        const reason: EndedReason | null = state ? endedReason(state, state.scene.deleted, now) : 'revoked';
        if (reason) {
          this.end(stream, reason, !state ? null : reason === 'expired' ? state.expiresAt : state.revokedAt);
          continue;
        }
        this.applyExpiry(stream, state!.expiresAt.getTime());
        if (stream.tellScene(state!)) (history.get(stream.sceneId) ?? setEntry(history, stream.sceneId)).push(stream);
      }
      // Still open (its timer came early, or it was extended): its expiry is watched again.
      if (state && this.streams.ofSession(id).size > 0) this.watchExpiry(id, state.expiresAt.getTime());
    }
    await this.sendHistories(history);
  }

  private async readScenes(sceneIds: string[]): Promise<void> {
    const asked = sceneIds.map((id) => [id, [...this.streams.ofScene(id)]] as const);
    let states: Map<string, WatchedScene>;
    try {
      states = new Map((await this.sessions.watchScenes(sceneIds)).map((s) => [s.scene.id, s]));
    } catch (e) {
      this.logQuietly(e, 'reading the scenes of open streams failed');
      return this.retryLater([], sceneIds);
    }
    const history = new Map<string, EventStream[]>();
    for (const [id, streams] of asked) {
      const state = states.get(id);
      for (const stream of streams) {
        if (!this.streams.has(stream)) continue;
        if (!state || state.scene.deleted) {
          this.end(stream, 'revoked', null);
          continue;
        }
        if (stream.tellScene(state)) (history.get(id) ?? setEntry(history, id)).push(stream);
      }
    }
    await this.sendHistories(history);
  }

  /**
   * PostgreSQL did not answer: read again in a second. A session whose expiry came is not kept
   * open meanwhile on the chance that an extension's news was lost: it ends as expired.
   */
  private readFailed(ids: string[], asked: Array<[string, EventStream[]]>): void {
    const now = this.clock.now().getTime();
    for (const [id, streams] of asked) {
      if (!this.expiring.delete(id)) continue;
      for (const s of streams) if (this.streams.has(s) && s.expiresAt <= now) this.end(s, 'expired', new Date(s.expiresAt));
    }
    this.retryLater(
      ids.filter((id) => this.streams.ofSession(id).size > 0),
      [],
    );
  }

  private retryLater(sessionIds: string[], sceneIds: string[]): void {
    for (const id of sessionIds) this.retrySessions.add(id);
    for (const id of sceneIds) this.retryScenes.add(id);
    if (this.closed) return;
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = null;
      const sessions = [...this.retrySessions].filter((id) => this.streams.ofSession(id).size > 0);
      const scenes = [...this.retryScenes].filter((id) => this.streams.hasScene(id));
      this.retrySessions.clear();
      this.retryScenes.clear();
      this.readLater(sessions, scenes);
    }, RETRY_MS);
  }

  // ---- what a page is told --------------------------------------------------------------------

  /** An extension (POST /v1/embed-sessions/{id}:extend): the page moves its expiry and tells the parent. */
  private applyExpiry(stream: EventStream, expiresAt: number): void {
    if (!stream.tellExpiry(expiresAt)) return;
    this.watchExpiry(stream.sessionId, expiresAt);
    this.slots
      .prolong(stream.sessionId, expiresAt)
      .catch((e: unknown) => this.logQuietly(e, 'keeping the places of an extended session failed'));
  }

  /** The edit history, read once per scene for all its edit-mode streams that need it. */
  private async sendHistories(history: Map<string, EventStream[]>): Promise<void> {
    for (const [sceneId, streams] of history) {
      let turns;
      try {
        turns = await this.sceneOperations.editTurns(sceneId);
      } catch (e) {
        this.logQuietly(e, 'reading an edit history failed');
        // Sent at the next read of the scene.
        for (const s of streams) s.editsUpdatedAt = null;
        this.retryLater([], [sceneId]);
        continue;
      }
      for (const s of streams) if (this.streams.has(s)) s.tellHistory(turns);
    }
  }

  /** Tells the page its session ended and closes the stream; the place goes back. */
  private end(stream: EventStream, reason: EndedReason, endedAt: Date | null): void {
    this.endAll([stream], reason, endedAt);
  }

  /**
   * Ends many streams at once (a scene deleted, an origin withdrawn): every page is told first,
   * then the bookkeeping (indexes, expiry timer, metrics, places) is done, so the last page hears
   * of it after the writes alone, not after the writes and the tidying of every stream before it.
   * Every stream told counts once in the metrics; its place goes back once, here or in `forget`
   * had its close been reported synchronously.
   */
  private endAll(streams: EventStream[], reason: EndedReason, endedAt: Date | null): void {
    const open = streams.filter((s) => this.streams.has(s));
    for (const s of open) s.end(reason);
    const now = this.clock.now();
    for (const s of open) {
      this.metrics.ended(reason, endedAt, now);
      if (this.unindex(s)) this.releaseSoon(s);
    }
  }

  /** A stream that ended otherwise (the page went away): its place goes back once. */
  private forget(stream: EventStream): void {
    if (this.unindex(stream)) this.releaseSoon(stream);
  }

  private unindex(stream: EventStream): boolean {
    const { removed, sessionEmpty } = this.streams.delete(stream);
    if (removed && sessionEmpty) {
      this.expiries.delete(stream.sessionId);
      this.armExpiry();
    }
    if (this.streams.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
    return removed;
  }

  /** One comment line per open stream, a batch per turn of the event loop. */
  private keepAlive(): void {
    const all = this.streams.all();
    const write = (from: number) => {
      for (const s of all.slice(from, from + WRITE_BATCH)) if (this.streams.has(s)) s.keepAlive();
      if (from + WRITE_BATCH < all.length) setImmediate(() => write(from + WRITE_BATCH));
    };
    write(0);
  }

  // ---- places ---------------------------------------------------------------------------------

  /** Places given back together: a scene's deletion ending thousands of streams costs one round trip. */
  private releaseSoon(slot: StreamSlot): void {
    this.releasing.push({ sessionId: slot.sessionId, streamId: slot.streamId });
    if (this.releasing.length === 1) setImmediate(() => void this.release(this.releasing.splice(0)));
  }

  private async release(slots: StreamSlot[]): Promise<void> {
    try {
      await this.slots.release(slots);
    } catch (e) {
      // A place whose release failed stays taken until its process's heartbeat stops (a claim at the limit drops it then).
      this.logQuietly(e, 'releasing stream places failed');
    }
  }

  /** Repeated while Redis or PostgreSQL is away, these would drown the log: the circuit breaker and /readyz say it. */
  private logQuietly(e: unknown, what: string): void {
    if (isInfrastructureError(e)) this.logger.debug(`${what}: ${(e as Error).message}`);
    else this.logger.warn(`${what}: ${(e as Error).message}`);
  }
}

function take(set: Set<string>, n: number): string[] {
  const out: string[] = [];
  for (const id of set) {
    if (out.length >= n) break;
    out.push(id);
  }
  for (const id of out) set.delete(id);
  return out;
}

function setEntry(map: Map<string, EventStream[]>, key: string): EventStream[] {
  const list: EventStream[] = [];
  map.set(key, list);
  return list;
}
