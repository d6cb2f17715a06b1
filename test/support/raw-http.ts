import { connect, Socket } from 'node:net';
import { image } from '../factories/images';
import { Signal } from './signal';

/** An HTTP/1.1 response read off a raw socket (our servers always send Content-Length). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: () => Record<string, unknown>;
}

/**
 * A client socket a test writes exact bytes to: half a request, a request on a connection the
 * server is closing, a body that never ends. Reads responses one at a time.
 */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private readonly arrived = new Signal();
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    this.closedPromise = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      }),
    );
    // A reset after the server answered is expected in some tests; the data read stays valid.
    socket.on('error', () => undefined);
  }

  /** `allowHalfOpen`: keep sending after the server closes its side, as a streaming client does. */
  static open(port: number, opts: { allowHalfOpen?: boolean } = {}): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: opts.allowHalfOpen ?? false });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (e) => (e ? reject(e) : resolve())));
  }

  /** The next complete response, or an error when the connection closes first or after `timeoutMs`. */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) throw new Error(`connection closed before a complete response: ${JSON.stringify(this.buffered.toString('latin1'))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no complete response within ${timeoutMs} ms`);
      await this.arrived.wait(left);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    this.arrived.notify();
  }

  private parse(): RawResponse | null {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const [statusLine, ...lines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffered.length < end + 4 + length) return null;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body, json: () => JSON.parse(body) as Record<string, unknown> };
  }
}

/** Whether a TCP connection to the port opens: 'connected', or the error's code ('ECONNREFUSED'). */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
}

/**
 * A complete single-file upload (`POST /v1/image-assets`, a small PNG) as raw bytes: its request
 * head, with any `extraHeaders` lines, and its body, to be sent in parts.
 */
export async function rawUpload(auth: string, extraHeaders: string[] = []): Promise<{ head: string; body: Buffer }> {
  const body = Buffer.concat([
    Buffer.from('--s\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'),
    await image('png', 320, 180, { noise: true }),
    Buffer.from('\r\n--s--\r\n'),
  ]);
  const head = [
    'POST /v1/image-assets HTTP/1.1',
    'Host: localhost',
    `Authorization: ${auth}`,
    'Content-Type: multipart/form-data; boundary=s',
    `Content-Length: ${body.length}`,
    ...extraHeaders,
  ].join('\r\n');
  return { head: `${head}\r\n\r\n`, body };
}
