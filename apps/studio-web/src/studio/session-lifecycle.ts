import { EventStreamClient } from '../api/event-stream.client';
import { StudioApiClient, StudioApiError } from '../api/studio-api.client';
import type { EndedReason, StudioSession } from '../api/studio-api.types';
import { ParentBridge } from '../parent/parent.bridge';
import type { LiveAnnouncer } from '../ui/live-announcer';
import { timeLeftText } from '../ui/expiry-warning';
import { StateScreen } from '../ui/state-screen.view';
import { parseServerEvent, type StudioServerEvent } from './scene-events';

export type StudioPhase = 'loading' | 'error' | 'active' | 'ended';

/** The stream's news for the studio's content; the session's own end is the lifecycle's business. */
export type StudioContentEvent = Exclude<StudioServerEvent, { type: 'session.ended' } | { type: 'session.updated' }>;

/** The longest the parent's `session.ended` waits for a running take to be finished and handed over. */
const HANDOVER_LIMIT_MS = 10_000;

/** Seconds before the expiry at which the parent gets `session.expiring` (each once per expiry). */
export const EXPIRY_WARNINGS_SECONDS = [300, 60] as const;

const ENDED_MESSAGES: Record<EndedReason | 'no_secret', string> = {
  expired: 'Its time ran out. Open the studio again from the page you came from to continue.',
  revoked: 'It was closed by the page that opened it, or its scene was removed.',
  no_secret: 'This studio link is incomplete or was already used. Open the studio again from the page you came from.',
};

/** What the page does at each step of the session's life; the lifecycle decides when. */
export interface SessionLifecycleHooks {
  /** The session is known: build the studio for it. Returns its elements, shown once built. */
  build(api: StudioApiClient, session: StudioSession): HTMLElement[];
  /** The studio is on screen and the parent has had `ready`: show the first state, start reading. */
  activated(api: StudioApiClient, session: StudioSession): void;
  /** Scene and edit news from the event stream, while active. */
  onEvent(event: StudioContentEvent): void;
  /** The event stream is up; after a gap (`reconnected`) the server's state may have moved on. */
  onStreamOpen(reconnected: boolean): void;
  /** The event stream dropped while active; it reconnects by itself. */
  onStreamLost(): void;
  /** The session is over: stop everything. Resolves to what the ended screen should still offer. */
  close(): Promise<HTMLElement | null>;
  /** The page is going away. */
  unload(): void;
  /** Seconds left when the expiry warns (with `session.expiring`); null once the session was extended. */
  expiring?(secondsLeft: number | null): void;
}

/**
 * The session's life, from the secret in the URL to the ended screen: opens the session (with a
 * retry when that fails), connects the parent bridge to the session's origin, keeps the event
 * stream open, and ends the studio for good — on `session.ended`, on any 401 from the API, or
 * when the expiry passes while the stream is down. What the studio shows meanwhile is the
 * hooks' business.
 */
export class SessionLifecycle {
  phase: StudioPhase = 'loading';
  session: StudioSession | null = null;
  endedReason: EndedReason | null = null;
  readonly bridge = new ParentBridge();
  private readonly api: StudioApiClient | null;
  private readonly screen = new StateScreen();
  private stream: EventStreamClient | null = null;
  private expiryTimer: number | undefined;
  private warningTimers: number[] = [];

  constructor(
    private readonly root: HTMLElement,
    secret: string | null,
    private readonly live: LiveAnnouncer,
    private readonly hooks: SessionLifecycleHooks,
  ) {
    this.api = secret ? new StudioApiClient(secret, (reason) => this.end(reason)) : null;
    root.replaceChildren(this.screen.element, this.live.element);
    window.addEventListener('pagehide', () => this.teardownOnUnload());
  }

  get streamConnected(): boolean {
    return this.stream?.connected ?? false;
  }

  start(): void {
    if (!this.api) {
      void this.endWithMessage(ENDED_MESSAGES.no_secret);
      return;
    }
    void this.load(this.api);
  }

  /**
   * Ends the studio for good: stop drawing, give back the GPU, say so, and tell the parent — after
   * a take still running is finished and handed over (`recording.completed`), so the parent
   * never hears of the end before it has the take. Bounded: the parent hears of the end within
   * HANDOVER_LIMIT_MS whatever the recorder does.
   */
  end(reason: EndedReason): void {
    if (this.phase === 'ended') return;
    this.endedReason = reason;
    const closed = this.endWithMessage(ENDED_MESSAGES[reason]);
    const limit = new Promise<void>((resolve) => window.setTimeout(resolve, HANDOVER_LIMIT_MS));
    void Promise.race([
      closed.then(
        () => undefined,
        () => undefined,
      ),
      limit,
    ]).then(() => {
      this.bridge.post('session.ended', { reason });
      this.bridge.disconnect();
    });
  }

  private async load(api: StudioApiClient): Promise<void> {
    this.setPhase('loading');
    this.screen.showLoading();
    try {
      const session = await api.session();
      if (this.phase === 'ended') return;
      this.activate(api, session);
    } catch (e) {
      if (this.phase === 'ended' || (e instanceof StudioApiError && e.isSessionEnded)) return;
      this.setPhase('error');
      const message =
        e instanceof StudioApiError && e.isNetwork
          ? 'The studio server could not be reached. Check the connection and try again.'
          : 'Something went wrong while opening the studio. Try again in a moment.';
      this.screen.showError(message, () => void this.load(api));
    }
  }

  private activate(api: StudioApiClient, session: StudioSession): void {
    this.session = session;
    this.bridge.connect(session.origin);
    const elements = this.hooks.build(api, session);

    this.screen.hide();
    this.root.replaceChildren(...elements, this.live.element, this.screen.element);
    this.setPhase('active');
    this.bridge.post('ready', {
      embedSessionId: session.embedSessionId,
      mode: session.mode,
      scene: { status: session.scene.status, version: session.scene.version },
    });

    this.stream = new EventStreamClient(api, {
      onEvent: (event) => {
        const parsed = parseServerEvent(event);
        if (parsed) this.onServerEvent(parsed);
      },
      onOpen: (reconnected) => this.hooks.onStreamOpen(reconnected),
      onDisconnect: () => {
        if (this.phase === 'active') this.hooks.onStreamLost();
      },
    });
    this.stream.start();

    this.hooks.activated(api, session);
    this.scheduleExpiryCheck(api, session.expiresAt);
    this.scheduleExpiryWarnings(session.expiresAt);
  }

  private onServerEvent(event: StudioServerEvent): void {
    if (this.phase !== 'active') return;
    if (event.type === 'session.ended') this.end(event.reason);
    else if (event.type === 'session.updated') this.expiryMoved(event.expiresAt);
    else this.hooks.onEvent(event);
  }

  /** The partner extended the session: same URL, new expiry, new warnings; the parent hears of it. */
  private expiryMoved(expiresAt: string): void {
    if (!this.session || !this.api || expiresAt === this.session.expiresAt) return;
    this.session = { ...this.session, expiresAt };
    window.clearTimeout(this.expiryTimer);
    this.scheduleExpiryCheck(this.api, expiresAt);
    // No warning at once after an extension, even a short one: a parent that extends on every
    // warning would otherwise loop. The thresholds still ahead still warn.
    this.scheduleExpiryWarnings(expiresAt, false);
    this.bridge.post('session.extended', { expiresAt });
    this.hooks.expiring?.(null);
    this.live.announce('This session was extended.');
  }

  /**
   * `session.expiring` to the parent 5 minutes and 1 minute before the expiry (at once, with what is
   * left, when the studio opens with less than 5 minutes to go: `warnNow`), so the partner can
   * extend the session (POST /v1/embed-sessions/{id}:extend) before the studio closes.
   */
  private scheduleExpiryWarnings(expiresAt: string, warnNow = true): void {
    for (const t of this.warningTimers) window.clearTimeout(t);
    this.warningTimers = [];
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    const warn = () => {
      if (this.phase !== 'active' || this.session?.expiresAt !== expiresAt) return;
      const secondsLeft = Math.max(0, Math.round((at - Date.now()) / 1000));
      this.bridge.post('session.expiring', { expiresAt, secondsLeft });
      this.hooks.expiring?.(secondsLeft);
      this.live.announce(`This session ends in ${timeLeftText(secondsLeft)}.`);
    };
    const remaining = at - Date.now();
    if (remaining <= 0) return;
    const due = EXPIRY_WARNINGS_SECONDS.filter((s) => remaining > s * 1000);
    // Inside the first warning's window already: warn now rather than stay silent until the next one.
    if (warnNow && due.length < EXPIRY_WARNINGS_SECONDS.length) warn();
    for (const s of due) this.warningTimers.push(window.setTimeout(warn, Math.min(remaining - s * 1000, 2 ** 31 - 1)));
  }

  /** Shows the ended screen; resolves once the studio is closed (a running take finished). */
  private endWithMessage(message: string): Promise<HTMLElement | null> {
    this.setPhase('ended');
    window.clearTimeout(this.expiryTimer);
    for (const t of this.warningTimers) window.clearTimeout(t);
    this.stream?.stop();
    const extra = this.hooks.close();
    this.root.replaceChildren(this.screen.element, this.live.element);
    this.screen.showEnded(message);
    this.live.announce('This session has ended.');
    void extra.then((element) => {
      if (element) this.screen.showEnded(message, element);
    });
    return extra;
  }

  /** The stream reports expiry within seconds; this covers a stream that is down at that moment. */
  private scheduleExpiryCheck(api: StudioApiClient, expiresAt: string): void {
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    const delay = Math.min(Math.max(0, at - Date.now()) + 1500, 2 ** 31 - 1);
    this.expiryTimer = window.setTimeout(() => void api.session().catch(() => undefined), delay);
  }

  private setPhase(phase: StudioPhase): void {
    this.phase = phase;
    this.root.dataset.phase = phase;
  }

  private teardownOnUnload(): void {
    this.stream?.stop();
    this.hooks.unload();
  }
}
