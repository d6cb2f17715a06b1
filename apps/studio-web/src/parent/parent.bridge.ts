import { isFramed } from '../ui/dom';
export const ENVELOPE_SOURCE = 'scene-studio';
export const ENVELOPE_VERSION = 1;

export interface StudioEnvelope {
  source: typeof ENVELOPE_SOURCE;
  version: typeof ENVELOPE_VERSION;
  type: string;
  payload: Record<string, unknown>;
}

export interface PostedEvent {
  type: string;
  payload: Record<string, unknown>;
  /** False when there was no parent to post to (the page was opened on its own). */
  delivered: boolean;
  at: number;
}

const LOG_LIMIT = 200;

/**
 * The postMessage protocol with the partner page (docs/embed.md, "Events" and "Messages").
 *
 * Nothing is posted until `connect(origin)` names the session's exact origin, which only the
 * server knows: the targetOrigin is never `*`, so a page at any other origin that frames us
 * receives nothing. Incoming messages are trusted only from our own parent window at that
 * origin, and can do nothing but `ping`: the mode and every action are decided by the server.
 */
export class ParentBridge {
  private origin: string | null = null;
  private readonly log: PostedEvent[] = [];
  private readonly hasParent = isFramed();
  private readonly listener = (event: MessageEvent) => this.receive(event);

  connect(origin: string): void {
    if (this.origin !== null) return;
    this.origin = origin;
    window.addEventListener('message', this.listener);
  }

  disconnect(): void {
    window.removeEventListener('message', this.listener);
  }

  post(type: string, payload: Record<string, unknown> = {}): void {
    if (this.origin === null) return;
    const message: StudioEnvelope = { source: ENVELOPE_SOURCE, version: ENVELOPE_VERSION, type, payload };
    let delivered = false;
    if (this.hasParent) {
      try {
        window.parent.postMessage(message, this.origin);
        delivered = true;
      } catch {
        // A payload that cannot be cloned is our bug, not the parent's problem; drop it.
      }
    }
    this.log.push({ type, payload, delivered, at: performance.now() });
    if (this.log.length > LOG_LIMIT) this.log.shift();
  }

  /** What was posted so far (for the debug hook); the secret is never in a payload. */
  history(): readonly PostedEvent[] {
    return this.log;
  }

  private receive(event: MessageEvent): void {
    if (!this.hasParent || event.source !== window.parent || event.origin !== this.origin) return;
    const data: unknown = event.data;
    if (!isEnvelope(data)) return;
    if (data.type === 'ping') {
      this.post('pong', isPlainObject(data.payload) ? data.payload : {});
      return;
    }
    this.post('error', {
      code: 'message_rejected',
      message: `The studio does not accept "${data.type.slice(0, 64)}" messages; only "ping" is understood.`,
    });
  }
}

function isEnvelope(data: unknown): data is StudioEnvelope {
  if (!isPlainObject(data)) return false;
  return data.source === ENVELOPE_SOURCE && data.version === ENVELOPE_VERSION && typeof data.type === 'string';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
