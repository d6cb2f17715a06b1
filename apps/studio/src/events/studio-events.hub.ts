import { EmbedSessionsService, endedReason, EndedReason, SessionWithScene, WatchedState } from '@app/embed-sessions';
import { ScenesService } from '@app/scenes';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

/** How often open streams are checked: revocation and expiry reach the studio within 2 s. */
const WATCH_INTERVAL_MS = 1000;
const HEARTBEAT_MS = 15_000;

interface Stream {
  sessionId: string;
  sceneId: string;
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

/** The page's `scene.status` event: the scene's state, with its creation's stage and progress while generating. */
function statusEvent(scene: SessionWithScene['scene']) {
  return { status: scene.status, version: scene.version, progress: scene.progress, stage: scene.stage, error: scene.error };
}

/**
 * The studio's server push. Each studio process watches the sessions of its own open streams in
 * one query per second — no per-connection polling, no dependency on a message bus that could
 * drop a revocation — and tells each page about scene changes, edit progress, a new expiry
 * (`session.updated`, after an extension) and the end of its session (revoked, expired or its
 * scene deleted), then closes that stream.
 */
@Injectable()
export class StudioEventsHub implements BeforeApplicationShutdown {
  private readonly logger = new Logger(StudioEventsHub.name);
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private readonly sessions: EmbedSessionsService,
    private readonly scenes: ScenesService,
  ) {}

  get openStreams(): number {
    return this.streams.size;
  }

  open({ session, scene }: SessionWithScene, req: Request, raw: Response): void {
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': req.requestId,
      // Proxies must not buffer a stream.
      'x-accel-buffering': 'no',
    });
    const stream: Stream = {
      sessionId: session.id,
      sceneId: scene.id,
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
    raw.on('close', () => this.streams.delete(stream));
    this.send(stream, 'scene.status', statusEvent(scene));
    this.timer ??= setInterval(() => void this.tick(), WATCH_INTERVAL_MS);
  }

  /** Before the HTTP server closes: it waits for open connections, and streams never end on their own. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const s of this.streams) s.raw.destroy();
    this.streams.clear();
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    if (this.streams.size === 0) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    this.ticking = true;
    try {
      const states = new Map((await this.sessions.watch([...new Set([...this.streams].map((s) => s.sessionId))])).map((s) => [s.id, s]));
      const now = this.sessions.now();
      for (const stream of this.streams) await this.update(stream, states.get(stream.sessionId), now);
    } catch (e) {
      this.logger.warn(`watching open sessions failed: ${(e as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

  private async update(stream: Stream, state: WatchedState | undefined, now: Date): Promise<void> {
    const reason: EndedReason | null = state ? endedReason(state, state.scene.deleted, now) : 'revoked';
    if (reason) {
      this.send(stream, 'session.ended', { reason });
      // The connection is not reused after a stream: close it rather than leave it open.
      stream.raw.end(() => stream.raw.socket?.destroySoon());
      this.streams.delete(stream);
      return;
    }
    // An extension (POST /v1/embed-sessions/{id}:extend): the page moves its expiry and tells the parent.
    if (state!.expiresAt.getTime() !== stream.expiresAt) {
      stream.expiresAt = state!.expiresAt.getTime();
      this.send(stream, 'session.updated', { expiresAt: state!.expiresAt.toISOString() });
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
      this.send(stream, 'scene.status', statusEvent(scene));
    }
    const editsAt = state!.editsUpdatedAt?.getTime() ?? null;
    if (editsAt !== stream.editsUpdatedAt) {
      stream.editsUpdatedAt = editsAt;
      this.send(stream, 'edit.updated', { turns: await this.scenes.editTurns(stream.sceneId) });
    }
    if (Date.now() - stream.lastWriteAt > HEARTBEAT_MS) this.comment(stream);
  }

  private send(stream: Stream, event: string, data: unknown): void {
    stream.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    stream.lastWriteAt = Date.now();
  }

  private comment(stream: Stream): void {
    stream.raw.write(': keep-alive\n\n');
    stream.lastWriteAt = Date.now();
  }
}
