import { createServer, connect, Server, Socket } from 'node:net';

/**
 * A TCP pass-through a test can cut, to make Postgres or Redis unreachable for one application
 * without touching the real servers other test files use, or freeze, to make it look hung:
 * connections stay open and accepted, nothing comes back until it thaws.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  private connections = 0;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    /** Sees every byte a client sends, per connection (numbered from 1), before it is passed on. */
    private readonly onClientData?: (connection: number, chunk: Buffer) => void,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      const connection = ++this.connections;
      if (this.onClientData) client.on('data', (chunk: Buffer) => this.onClientData!(connection, chunk));
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      if (this.frozen) for (const s of [client, upstream]) s.pause();
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** Refuses new connections and drops the open ones. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops forwarding in both directions; bytes wait in the sockets' buffers. */
  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) s.pause();
  }

  /** Forwards again, the held bytes first. */
  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) s.resume();
  }

  /** Accepts connections again on the same port. */
  async restore(): Promise<void> {
    await this.start(this.port);
  }
}
