import { EndedReason, StudioEvent, StudioEventType, StudioView, WatchedScene } from '@app/embed-sessions';
import { SceneState } from '@app/operations';
import type { Request, Response } from 'express';
import { StreamSlot } from './stream-slots';

/** `session.ended` as written, once per reason rather than once per stream. */
const ENDED: Record<EndedReason, string> = {
  expired: `event: session.ended\ndata: ${JSON.stringify({ reason: 'expired' })}\n\n`,
  revoked: `event: session.ended\ndata: ${JSON.stringify({ reason: 'revoked' })}\n\n`,
};

const KEEP_ALIVE = ': keep-alive\n\n';

/**
 * One open event stream (`GET /studio-api/v1/events`): its response, what its page was last told,
 * and how events are written to it, each through the session's StudioView (a perform stream never
 * carries the edit history). A class, so its fields sit in the object itself: thousands are held
 * for hours.
 */
export class EventStream implements StreamSlot {
  /** What the page was last told of the scene. */
  private status: string;
  private version: number | null;
  private progress: number | null;
  private stage: string | null;
  /** The last change to the edit history the page was told of (none at first: it reads its history itself). */
  editsUpdatedAt: number | null = null;

  private constructor(
    readonly sessionId: string,
    readonly streamId: string,
    readonly sceneId: string,
    readonly view: StudioView,
    private readonly raw: Response,
    scene: SceneState,
    /** The expiry the page was last told (at open, through the session it loaded; then `session.updated`). */
    public expiresAt: number,
    /** Told of every event written to the page (the studio's metrics). */
    private readonly sent: (type: StudioEventType) => void,
  ) {
    this.status = scene.status;
    this.version = scene.version;
    this.progress = scene.progress;
    this.stage = scene.stage;
  }

  /** Answers the request with the stream's head and the scene as the guard read it. */
  static open(
    slot: StreamSlot,
    view: StudioView,
    scene: SceneState,
    expiresAt: number,
    req: Request,
    raw: Response,
    sent: (type: StudioEventType) => void,
  ): EventStream {
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': req.requestId,
      // Proxies must not buffer a stream.
      'x-accel-buffering': 'no',
      // A stream's connection is closed when the stream ends (end()). Said up front, so no client
      // puts it back in its pool at the end of the body and sends its next request on a socket
      // we are closing (undici then fails that request: "other side closed").
      connection: 'close',
    });
    forgetRouting(req);
    const stream = new EventStream(slot.sessionId, slot.streamId, scene.id, view, raw, scene, expiresAt, sent);
    stream.send({ type: 'scene.status', data: view.sceneStatus(scene) });
    return stream;
  }

  /** Calls `onClose` once the connection is gone, however it went. */
  onClose(onClose: () => void): void {
    this.raw.on('close', onClose);
  }

  /** Tells the page of a new expiry; false when it knew it. */
  tellExpiry(expiresAt: number): boolean {
    if (expiresAt === this.expiresAt) return false;
    this.expiresAt = expiresAt;
    this.send({ type: 'session.updated', data: { expiresAt: new Date(expiresAt).toISOString() } });
    return true;
  }

  /** Tells the page what moved in the scene; true when it must be sent its edit history (`tellHistory`). */
  tellScene({ scene, editsUpdatedAt }: WatchedScene): boolean {
    if (scene.status !== this.status || scene.version !== this.version || scene.progress !== this.progress || scene.stage !== this.stage) {
      this.status = scene.status;
      this.version = scene.version;
      this.progress = scene.progress;
      this.stage = scene.stage;
      this.send({ type: 'scene.status', data: this.view.sceneStatus(scene) });
    }
    const editsAt = editsUpdatedAt?.getTime() ?? null;
    if (!this.view.receives('edit.updated') || editsAt === this.editsUpdatedAt) return false;
    this.editsUpdatedAt = editsAt;
    return true;
  }

  tellHistory(turns: Extract<StudioEvent, { type: 'edit.updated' }>['data']['turns']): void {
    this.send({ type: 'edit.updated', data: { turns } });
  }

  keepAlive(): void {
    this.raw.write(KEEP_ALIVE);
  }

  /** Tells the page its session ended, then closes the connection, which is not reused after a stream. */
  end(reason: EndedReason): void {
    // Taken now: by the time the response has finished, Node has detached it from the response.
    const socket = this.raw.socket;
    const close = () => socket?.destroySoon();
    if (this.view.receives('session.ended')) {
      this.raw.end(ENDED[reason], close);
      this.sent('session.ended');
    } else this.raw.end(close);
  }

  /** Cuts the connection (the process is stopping: pages reconnect elsewhere). */
  destroy(): void {
    this.raw.destroy();
  }

  private send(event: StudioEvent): void {
    const shown = this.view.event(event);
    if (!shown) return;
    this.raw.write(`event: ${shown.type}\ndata: ${JSON.stringify(shown.data)}\n\n`);
    this.sent(shown.type);
  }
}

/**
 * What routing this request attached to it and an open stream never uses again, let go: the
 * session as the guard read it (the stream keeps what it needs), Express's router continuation
 * (`next`, whose closures hold the router's state for the request) and its parsed-URL cache
 * (docs/performance.md, "Open event streams").
 */
function forgetRouting(req: Request): void {
  const routed = req as Request & { next?: unknown; _parsedUrl?: unknown };
  routed.studioSession = undefined;
  routed.next = undefined;
  routed._parsedUrl = undefined;
}
