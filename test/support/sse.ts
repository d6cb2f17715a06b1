import { Signal } from './signal';

/** A server-sent events reader over fetch, as the studio page reads them (secret in a header). */
export class SseClient {
  /** Each event with when it arrived. */
  readonly events: Array<{ event: string; data: any; receivedAt: number }> = [];
  /** Every byte of the body as received, decoded: events, comments and all. */
  raw = '';
  private readonly arrived = new Signal();
  private readonly controller = new AbortController();
  done: Promise<void> = Promise.resolve();
  status = 0;
  headers: Headers | null = null;

  static async open(url: string, headers: Record<string, string>): Promise<SseClient> {
    const c = new SseClient();
    const res = await fetch(url, { headers, signal: c.controller.signal });
    c.status = res.status;
    c.headers = res.headers;
    if (res.ok && res.body) c.done = c.read(res.body);
    return c;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        this.raw += text;
        buffer += text;
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) this.events.push({ event, data: JSON.parse(data.join('\n')), receivedAt: Date.now() });
          this.notify();
        }
      }
    } catch {
      // aborted or closed
    } finally {
      this.closed = true;
      this.notify();
    }
  }

  closed = false;

  private notify(): void {
    this.arrived.notify();
  }

  /** Resolves with the first event of that name (already received or coming, with when it arrived), or rejects after the deadline. */
  async next(name: string, timeoutMs = 5000): Promise<{ event: string; data: any; receivedAt: number }> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      const found = this.events.slice(seen).find((e) => e.event === name);
      if (found) return found;
      seen = this.events.length;
      if (this.closed) throw new Error(`stream closed without ${name}; got ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${name} within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await this.arrived.wait(left);
    }
  }

  close(): void {
    this.controller.abort();
  }
}
