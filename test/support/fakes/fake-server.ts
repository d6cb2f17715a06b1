import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/**
 * The plumbing every fake provider shares: a real HTTP server on 127.0.0.1 and a free port, a
 * deep backlog (benchmarks open a thousand connections at once), requests handed to `handle`
 * (a handler that throws destroys its socket, as a crashing provider would), and `close()`
 * that also ends kept-alive and hanging connections.
 */
export class FakeServer {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<FakeServer> {
    const server = createServer();
    const fake = new FakeServer(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      res.on('error', () => undefined);
      handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
    return fake;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Resolves once `res` may be written again (or is gone). */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** Writes `total` filler bytes as the body (headers already written), minding back-pressure, and ends it. */
export async function streamFiller(res: ServerResponse, total: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk.subarray(0, Math.min(chunk.length, total - sent)))) await drained(res);
  }
  res.end();
}

/**
 * A GLB with a correct header whose JSON chunk is broken and quotes `marker` unquoted, so a JSON
 * parser's error message would carry it: a test then proves no parser message leaks.
 */
export function brokenGlb(marker: string): Buffer {
  const json = Buffer.from(`{"asset": ${marker}}`.padEnd(4 * Math.ceil((marker.length + 12) / 4), ' '));
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0); // glTF
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16); // JSON
  return Buffer.concat([header, json]);
}
