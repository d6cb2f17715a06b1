import { SseParser, type ServerSentEvent } from './sse.parser';
import { StudioApiError, type StudioApiClient } from './studio-api.client';

export interface EventStreamHandlers {
  onEvent(event: ServerSentEvent): void;
  /** Connected (again). After a gap the caller should re-read state it may have missed. */
  onOpen(reconnected: boolean): void;
  onDisconnect(): void;
}

const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
/** The server sends a comment every 15 s; three missed heartbeats means the link is dead. */
const SILENCE_LIMIT_MS = 45_000;

/**
 * Keeps `GET /events` open: reads it with fetch, parses it, and reconnects with capped,
 * jittered exponential backoff after any network loss. A 401 stops it for good (the API client
 * has already reported the session as ended).
 */
export class EventStreamClient {
  private controller: AbortController | null = null;
  private stopped = true;
  private attempt = 0;
  private everConnected = false;
  private lastEventId: string | null = null;
  private retryTimer: number | undefined;
  private watchdog: number | undefined;
  private _connected = false;
  /** The server's `retry:` hint replaces the first backoff step. */
  private retryHintMs: number | null = null;
  /** A refusal's `Retry-After` (429: the session's streams are all open elsewhere) replaces the next step. */
  private refusedForMs: number | null = null;

  constructor(
    private readonly api: StudioApiClient,
    private readonly handlers: EventStreamHandlers,
  ) {}

  get connected(): boolean {
    return this._connected;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.watchdog);
    this.controller?.abort();
    this.controller = null;
    this.setConnected(false);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const controller = new AbortController();
    this.controller = controller;
    try {
      const res = await this.api.events(controller.signal, this.lastEventId);
      if (!res.body) throw new Error('no body');
      const reconnected = this.everConnected;
      this.everConnected = true;
      this.attempt = 0;
      this.setConnected(true);
      this.handlers.onOpen(reconnected);
      await this.read(res.body, controller);
    } catch (e) {
      if (e instanceof StudioApiError && e.isSessionEnded) {
        this.stop();
        return;
      }
      if (e instanceof StudioApiError && e.retryAfterSeconds !== null) this.refusedForMs = e.retryAfterSeconds * 1000;
    }
    if (this.controller === controller) this.controller = null;
    window.clearTimeout(this.watchdog);
    this.setConnected(false);
    this.scheduleReconnect();
  }

  private async read(body: ReadableStream<Uint8Array>, controller: AbortController): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser(
      (event) => {
        this.lastEventId = event.lastEventId;
        this.handlers.onEvent(event);
      },
      () => undefined,
    );
    const armWatchdog = () => {
      window.clearTimeout(this.watchdog);
      this.watchdog = window.setTimeout(() => controller.abort(), SILENCE_LIMIT_MS);
    };
    armWatchdog();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        armWatchdog();
        parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
      if (parser.retryMs !== null) this.retryHintMs = Math.max(250, parser.retryMs);
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const backoff =
      this.attempt === 0 && this.retryHintMs !== null ? this.retryHintMs : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const base = Math.max(backoff, this.refusedForMs ?? 0);
    this.refusedForMs = null;
    this.attempt++;
    // Jitter so that many studios cut off by one server restart do not reconnect in lockstep.
    const delay = base * (0.75 + Math.random() * 0.5);
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => void this.connect(), delay);
  }

  private setConnected(connected: boolean): void {
    if (this._connected === connected) return;
    this._connected = connected;
    if (!connected) this.handlers.onDisconnect();
  }
}
