import { DomainError, ErrorCode, isInfrastructureError } from '@app/core';
import {
  EmbedSessionsService,
  endedReason,
  EndedReason,
  SessionWithScene,
  StudioEvent,
  StudioView,
  WatchedState,
} from '@app/embed-sessions';
import { ScenesService } from '@app/scenes';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { STREAM_LEASE_MS, StreamSlot, StreamSlots } from './stream-slots';
import { StudioStreamMetrics } from './studio-stream-metrics';

/** How often open streams are checked: revocation and expiry reach the studio within 2 s. */
const WATCH_INTERVAL_MS = 1000;
const HEARTBEAT_MS = 15_000;

interface Stream extends StreamSlot {
  sceneId: string;
  /** What the session's mode receives: every event goes through it. */
  view: StudioView;
  raw: Response;
  status: string;
  version: number | null;
  progress: number | null;
  stage: string | null;
  editsUpdatedAt: number | null;
  /** The expiry the page was last told (at open, through the session it loaded). */
  expiresAt: number;
  lastWriteAt: number;
}

/**
 * The studio's server push. Each studio process watches the sessions of its own open streams in
 * one query per second — no per-connection polling, no dependency on a message bus that could
 * drop a revocation — and tells each page about scene changes, edit progress, a new expiry
 * (`session.updated`, after an extension) and the end of its session (revoked, expired or its
 * scene deleted), then closes that stream. A session holds at most STUDIO_EVENT_STREAMS_PER_SESSION
 * streams across replicas (StreamSlots); every way a stream ends gives its place back. Each
 * event passes the session's StudioView: a perform stream never carries the edit history.
 */
@Injectable()
export class StudioEventsHub implements BeforeApplicationShutdown {
  private readonly logger = new Logger(StudioEventsHub.name);
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private refreshing = false;

  constructor(
    private readonly sessions: EmbedSessionsService,
    private readonly scenes: ScenesService,
    private readonly slots: StreamSlots,
    private readonly metrics: StudioStreamMetrics,
  ) {
    metrics.countOpenStreams(() => this.streams.size);
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Opens the page's stream, once it has one of the session's places: `429 rate_limited` when they are taken. */
  async open({ session, scene }: SessionWithScene, req: Request, raw: Response): Promise<void> {
    const slot: StreamSlot = { sessionId: session.id, streamId: this.slots.newStreamId() };
    const openHere = [...this.streams].filter((s) => s.sessionId === session.id).length;
    if (!(await this.slots.claim(slot, openHere))) {
      throw new DomainError(
        ErrorCode.RateLimited,
        `This session already has ${this.slots.limit} open event streams, its limit. Close one, or retry after the indicated delay.`,
        { retryAfterSeconds: STREAM_LEASE_MS / 1000 },
      );
    }
    // The page went away while its place was taken: give it back at once.
    if (raw.destroyed || !raw.socket || raw.socket.destroyed) return this.release([slot]);
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': req.requestId,
      // Proxies must not buffer a stream.
      'x-accel-buffering': 'no',
    });
    const stream: Stream = {
      ...slot,
      sceneId: scene.id,
      view: StudioView.of(session.mode),
      raw,
      status: scene.status,
      version: scene.version,
      progress: scene.progress,
      stage: scene.stage,
      editsUpdatedAt: null,
      expiresAt: session.expiresAt.getTime(),
      lastWriteAt: Date.now(),
    };
    this.streams.add(stream);
    raw.on('close', () => this.forget(stream));
    this.send(stream, { type: 'scene.status', data: stream.view.sceneStatus(scene) });
    this.timer ??= setInterval(() => void this.tick(), WATCH_INTERVAL_MS);
  }

  /** Before the HTTP server closes: it waits for open connections, and streams never end on their own. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const closing = [...this.streams];
    this.streams.clear();
    for (const s of closing) s.raw.destroy();
    // Before Redis closes: the places are free at once for the pages reconnecting elsewhere.
    await this.release(closing);
  }

  /** A stream that ended (the page went away, its session ended): its place goes back once. */
  private forget(stream: Stream): void {
    if (this.streams.delete(stream)) void this.release([stream]);
  }

  private async release(slots: StreamSlot[]): Promise<void> {
    try {
      await this.slots.release(slots);
    } catch (e) {
      // The lease runs out on its own. Redis being away is already reported by its circuit breaker.
      this.logQuietly(e, 'releasing stream places failed');
    }
  }

  /** Keeps the places of open streams, whatever the session watch is doing. */
  private async refreshLeases(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      await this.slots.refresh([...this.streams]);
    } catch (e) {
      this.logQuietly(e, 'refreshing stream places failed');
    } finally {
      this.refreshing = false;
    }
  }

  /** Every second while Redis is away would drown the log: that is the circuit breaker's to say. */
  private logQuietly(e: unknown, what: string): void {
    if (isInfrastructureError(e)) this.logger.debug(`${what}: ${(e as Error).message}`);
    else this.logger.warn(`${what}: ${(e as Error).message}`);
  }

  private async tick(): Promise<void> {
    void this.refreshLeases();
    if (this.ticking) return;
    if (this.streams.size === 0) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    this.ticking = true;
    try {
      // The streams open now, and only those: one opened while the read is in flight was not
      // asked about, so it waits for the next tick instead of being taken for a revoked session.
      const watched = [...this.streams];
      const states = new Map((await this.sessions.watch([...new Set(watched.map((s) => s.sessionId))])).map((s) => [s.id, s]));
      const now = this.sessions.now();
      for (const stream of watched) if (this.streams.has(stream)) await this.update(stream, states.get(stream.sessionId), now);
    } catch (e) {
      this.logger.warn(`watching open sessions failed: ${(e as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

  private async update(stream: Stream, state: WatchedState | undefined, now: Date): Promise<void> {
    const reason: EndedReason | null = state ? endedReason(state, state.scene.deleted, now) : 'revoked';
    if (reason) {
      this.send(stream, { type: 'session.ended', data: { reason } });
      if (state) this.metrics.ended(reason, reason === 'revoked' ? state.revokedAt : state.expiresAt, this.sessions.now());
      // The connection is not reused after a stream: close it rather than leave it open.
      stream.raw.end(() => stream.raw.socket?.destroySoon());
      this.forget(stream);
      return;
    }
    // An extension (POST /v1/embed-sessions/{id}:extend): the page moves its expiry and tells the parent.
    if (state!.expiresAt.getTime() !== stream.expiresAt) {
      stream.expiresAt = state!.expiresAt.getTime();
      this.send(stream, { type: 'session.updated', data: { expiresAt: state!.expiresAt.toISOString() } });
    }
    const scene = state!.scene;
    if (
      scene.status !== stream.status ||
      scene.version !== stream.version ||
      scene.progress !== stream.progress ||
      scene.stage !== stream.stage
    ) {
      stream.status = scene.status;
      stream.version = scene.version;
      stream.progress = scene.progress;
      stream.stage = scene.stage;
      this.send(stream, { type: 'scene.status', data: stream.view.sceneStatus(scene) });
    }
    const editsAt = state!.editsUpdatedAt?.getTime() ?? null;
    if (stream.view.receives('edit.updated') && editsAt !== stream.editsUpdatedAt) {
      stream.editsUpdatedAt = editsAt;
      this.send(stream, { type: 'edit.updated', data: { turns: await this.scenes.editTurns(stream.sceneId) } });
    }
    if (Date.now() - stream.lastWriteAt > HEARTBEAT_MS) this.comment(stream);
  }

  private send(stream: Stream, event: StudioEvent): void {
    const shown = stream.view.event(event);
    if (!shown) return;
    stream.raw.write(`event: ${shown.type}\ndata: ${JSON.stringify(shown.data)}\n\n`);
    this.metrics.sent(shown.type);
    stream.lastWriteAt = Date.now();
  }

  private comment(stream: Stream): void {
    stream.raw.write(': keep-alive\n\n');
    stream.lastWriteAt = Date.now();
  }
}
