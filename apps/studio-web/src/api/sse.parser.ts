export interface ServerSentEvent {
  /** `message` when the event had no `event:` field, as in the HTML standard. */
  type: string;
  data: string;
  lastEventId: string | null;
}

/**
 * An incremental `text/event-stream` parser (HTML standard §9.2.6). We read the stream with
 * `fetch` because the secret travels in a header, which EventSource cannot send, so we parse
 * it ourselves. Chunks may split lines anywhere, including between a CR and its LF.
 */
export class SseParser {
  private buffer = '';
  private skipLeadingLf = false;
  private eventType = '';
  private dataLines: string[] = [];
  private lastEventId: string | null = null;
  /** The server's `retry:` hint in milliseconds, if it sent one. */
  retryMs: number | null = null;

  constructor(
    private readonly onEvent: (event: ServerSentEvent) => void,
    private readonly onComment: (text: string) => void = () => undefined,
  ) {}

  push(chunk: string): void {
    let text = chunk;
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    this.buffer += text;

    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      this.line(this.buffer.slice(start, i));
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return this.onComment(line.slice(1));
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.dataLines.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    const type = this.eventType || 'message';
    const hadData = this.dataLines.length > 0;
    const data = this.dataLines.join('\n');
    this.eventType = '';
    this.dataLines = [];
    if (!hadData) return;
    this.onEvent({ type, data, lastEventId: this.lastEventId });
  }
}
