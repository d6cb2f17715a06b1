import { NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { createExpressInstance, createExpressServer } from './express-server';

/**
 * Nest's Express adapter with a graceful close: the listener stops, idle keep-alive connections
 * close at once, requests in flight finish (their responses carry `Connection: close`), a request
 * arriving meanwhile on an open connection gets `503 unavailable`, a connection still sending a
 * request's head gets what is left of the header timeout, and whatever still runs after the
 * shutdown timeout is cut.
 */
export class HttpAdapter extends ExpressAdapter {
  private isClosing = false;
  private readonly inFlight = new Set<Response>();
  private readonly sockets = new Set<Socket>();
  drainTimeoutMs = 25_000;

  constructor() {
    super(createExpressInstance());
  }

  get closing(): boolean {
    return this.isClosing;
  }

  /**
   * A route's JSON answer, written directly. Nest's adapter hands it to Express's `res.json`,
   * which, for the same bytes, parses and re-formats the Content-Type it has just set and checks
   * conditional-request freshness this service never uses (no ETag, no Last-Modified): about
   * 2 % of the api's CPU when polling. Anything else (no body, files, streams, errors, 204/304,
   * a Content-Type the route chose) takes Nest's path.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (
      body === null ||
      typeof body !== 'object' ||
      body instanceof StreamableFile ||
      body instanceof Error ||
      ArrayBuffer.isView(body) ||
      statusCode === 204 ||
      statusCode === 304 ||
      response.headersSent ||
      response.getHeader('content-type') !== undefined
    ) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode) response.statusCode = statusCode;
    const json = JSON.stringify(body);
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.setHeader('content-length', Buffer.byteLength(json));
    return response.end(json);
  }

  /** The server of `createExpressServer` instead of Nest's plain one (TLS ends at the load balancer). */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions) throw new Error('HTTPS is terminated by the load balancer, not by this process');
    const server = createExpressServer(this.getInstance<Express>());
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.setHttpServer(server);
  }

  /** Responses in flight, so a close can tell them to drop their connections. */
  track(res: Response): void {
    this.inFlight.add(res);
  }

  untrack(res: Response): void {
    this.inFlight.delete(res);
  }

  override async close(): Promise<void> {
    this.isClosing = true;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const server = this.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(() => server.closeAllConnections(), this.drainTimeoutMs);
      deadline.unref();
      server.close(() => {
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
      this.endHeadsInProgress(server.headersTimeout);
    });
  }

  /**
   * `server.close()` also stops Node's periodic check of the header timeout, and Node does not
   * count a connection that has sent part of a request's head as idle: without this, one client
   * trickling a request line would hold the shutdown until its deadline. Such a connection has
   * no request in flight here yet, and cannot get one (a request that arrives while closing is
   * answered `503` and closes its connection): it gets the header timeout, then is dropped.
   */
  private endHeadsInProgress(headersTimeoutMs: number): void {
    const busy = new Set<unknown>();
    for (const res of this.inFlight) busy.add(res.socket);
    for (const socket of this.sockets) {
      if (busy.has(socket)) continue;
      const timer = setTimeout(() => socket.destroy(), headersTimeoutMs);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    }
  }
}
