import type { INestApplicationContext } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { AppConfig } from '../config';
import { ROOT_LOGGER } from '../logging';
import { MetricsService } from '../metrics';

/** What stops a process gracefully: an orchestrator's SIGTERM, Ctrl-C's SIGINT, a closed terminal's SIGHUP. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * How much longer than SHUTDOWN_TIMEOUT_SECONDS a stop may take in all: after the drain, the
 * database pool, Redis and the ops server close. Past it the process exits anyway.
 */
export const STOP_MARGIN_MS = 5_000;

export type FatalErrorKind = 'uncaughtException' | 'unhandledRejection';

/** The parts of Node's `process` a stop uses; a fake in unit specs. */
export interface ProcessPort {
  readonly pid: number;
  exitCode?: number | string | null;
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  on(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
  exit(code: number): unknown;
}

export interface ProcessStopsDependencies {
  /** Nest's application (context): `close(reason)` runs the shutdown hooks with that reason. */
  app: { close(reason?: string): Promise<void> };
  logger: Pick<Logger, 'fatal' | 'error' | 'info'>;
  fatalErrors: Counter<'kind'>;
  /** SHUTDOWN_TIMEOUT_SECONDS: what running requests and jobs get to finish. */
  shutdownTimeoutMs: number;
  proc: ProcessPort;
}

/** An error as the root logger's `err` serializer reads it, also for a rejection with a non-error value. */
function loggable(value: unknown): Pick<Error, 'name' | 'message' | 'stack'> {
  if (value instanceof Error) return value;
  const type = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'Object') : typeof value;
  // A primitive says what it is; an object is named only by its type (its fields may hold anything).
  const primitive = ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
  return {
    name: `non-error ${type}`,
    message: primitive ? String(value) : `a value of type ${type}`,
  };
}

/**
 * One way for a long-running process to stop, whatever asks it to: a stop signal, or a
 * programming error that nothing caught (an exception thrown from a timer or a callback, a
 * rejected promise nobody awaited). Such an error leaves the process in a state no one designed,
 * so it is never swallowed: it is logged once as `fatal` (message and stack, secrets scrubbed by
 * the root logger), counted in `process_fatal_errors_total{kind}`, and the process stops as it
 * does on SIGTERM — the listener closes at once, requests in flight and running jobs get
 * SHUTDOWN_TIMEOUT_SECONDS — then exits 1. The ops servers close last, so `/metrics` shows the
 * count while the process drains.
 *
 * Only the first cause starts a stop. A later signal is noted; a later fatal error is logged and
 * counted, and makes the exit code 1. Whatever happens, the process exits within
 * SHUTDOWN_TIMEOUT_SECONDS + STOP_MARGIN_MS (an unref'd timer: it keeps nothing alive).
 */
export class ProcessStops {
  private reason: string | null = null;
  private fatal = false;
  private readonly servers: Server[] = [];

  constructor(private readonly deps: ProcessStopsDependencies) {
    for (const kind of ['uncaughtException', 'unhandledRejection'] as const) deps.fatalErrors.inc({ kind }, 0);
  }

  install(): this {
    const { proc } = this.deps;
    for (const signal of STOP_SIGNALS) proc.on(signal, this.onSignal);
    proc.on('uncaughtException', this.onUncaughtException);
    proc.on('unhandledRejection', this.onUnhandledRejection);
    return this;
  }

  /** A server to close once the application has: the ops server, which reports the drain. */
  closeLast(server: Server): void {
    if (this.reason) server.close();
    else this.servers.push(server);
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.reason) {
      this.deps.logger.info({ signal }, `received ${signal} while stopping (${this.reason}); the stop goes on`);
      return;
    }
    this.deps.logger.info({ signal }, `received ${signal}: stopping; work in flight has ${this.deps.shutdownTimeoutMs / 1000} s`);
    void this.stop(signal, () => {
      for (const s of STOP_SIGNALS) this.deps.proc.off(s, this.onSignal);
      // Re-raised, as Nest's shutdown hooks do: the exit status tells which signal ended the process.
      this.deps.proc.kill(this.deps.proc.pid, signal);
    });
  };

  private readonly onUncaughtException = (error: unknown): void => this.onFatal('uncaughtException', error);

  private readonly onUnhandledRejection = (reason: unknown): void => this.onFatal('unhandledRejection', reason);

  /** Runs inside Node's error events: it must not throw (that would end the process with code 7). */
  private onFatal(kind: FatalErrorKind, error: unknown): void {
    const { logger, fatalErrors, proc } = this.deps;
    const first = !this.reason;
    this.fatal = true;
    // Whichever way the process ends from here (even an emptied event loop), it ends in failure.
    proc.exitCode = 1;
    try {
      fatalErrors.inc({ kind });
      if (first) {
        logger.fatal({ kind, err: loggable(error) }, `${kind}: a programming error; the process stops and exits 1`);
      } else {
        logger.fatal({ kind, err: loggable(error) }, `${kind} while stopping (${this.reason}); the stop goes on`);
      }
    } catch {
      // Logging or counting failed: the stop below matters more.
    }
    if (!this.reason) void this.stop(kind, () => proc.exit(1));
  }

  private async stop(reason: string, done: () => void): Promise<void> {
    const { app, logger, proc, shutdownTimeoutMs } = this.deps;
    this.reason = reason;
    const deadlineMs = shutdownTimeoutMs + STOP_MARGIN_MS;
    const deadline = setTimeout(() => {
      logger.error({ reason }, `still stopping ${deadlineMs} ms after ${reason}; exiting now`);
      proc.exit(1);
    }, deadlineMs);
    deadline.unref();
    try {
      await app.close(reason);
      await Promise.all(this.servers.map(closeServer));
    } catch (e) {
      logger.error({ reason, err: loggable(e) }, `stopping after ${reason} failed; exiting now`);
      proc.exit(1);
      return;
    }
    clearTimeout(deadline);
    // A fatal error during a signal's stop still makes the exit a failure.
    if (this.fatal) proc.exit(1);
    else done();
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Resolves also when it was not listening: there is nothing left to wait for.
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * Installs, in a process's `main`, the one way it stops (ProcessStops), in place of Nest's
 * `enableShutdownHooks`: as soon as the application exists, so a signal or a fatal error while
 * it boots is handled too. Hand it the ops server once that listens (`closeLast`).
 */
export function stopOnSignalsAndFatalErrors(app: INestApplicationContext): ProcessStops {
  const config = app.get(AppConfig);
  return new ProcessStops({
    app,
    logger: app.get<Logger>(ROOT_LOGGER).child({ context: 'ProcessStops' }),
    fatalErrors: app
      .get(MetricsService)
      .counter('process_fatal_errors_total', 'Uncaught exceptions and unhandled rejections; each one stops the process', ['kind'] as const),
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    proc: process,
  }).install();
}
