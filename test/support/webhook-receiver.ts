import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: http.IncomingHttpHeaders;
  receivedAt: number;
}

/**
 * How the receiver answers one request: a status, or `hang` (never answers), or `drip` (a byte of
 * status line at a time), or a status sent once `when` settles (an attempt held open on cue).
 */
export type Answer = number | 'hang' | 'drip' | { status: number; when: Promise<unknown> };

/**
 * A partner's webhook receiver on 127.0.0.1: records every request and answers as `answer`
 * decides (by default 204). Reachable by a test organization as http://localhost:<port>/hooks.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (request: ReceivedWebhook, n: number) => Answer = () => 204;
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: ReceivedWebhook = {
          id: String(req.headers['webhook-id'] ?? ''),
          timestamp: String(req.headers['webhook-timestamp'] ?? ''),
          signature: String(req.headers['webhook-signature'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers,
          receivedAt: Date.now(),
        };
        this.received.push(r);
        const answer = this.answer(r, this.received.length);
        if (answer === 'hang') return;
        if (answer === 'drip') {
          const line = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
          let i = 0;
          const timer = setInterval(() => {
            if (i >= line.length || req.socket.destroyed) return clearInterval(timer);
            req.socket.write(line.subarray(i, ++i));
          }, 500);
          req.socket.on('close', () => clearInterval(timer));
          return;
        }
        if (typeof answer === 'object') {
          void answer.when.finally(() => {
            if (!res.destroyed) res.writeHead(answer.status).end();
          });
          return;
        }
        res.writeHead(answer).end();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const r = new WebhookReceiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  get url(): string {
    return `http://localhost:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /**
   * The received requests whose signature verifies with `secret`, parsed: those of one endpoint
   * (each endpoint has its own secret). A request signed wrongly shows up in none.
   */
  verified(secret: string): { id: string; type: string; timestamp: string; data: Record<string, unknown> }[] {
    const wh = new Webhook(secret);
    return this.received.flatMap((r) => {
      try {
        const headers = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
        const body = wh.verify(r.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
        return [{ id: r.id, ...body }];
      } catch {
        return [];
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
