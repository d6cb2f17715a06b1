import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { DestinationStream, Logger as PinoInstance } from 'pino';
import { AppConfig } from '../config';
import { scrubSecrets } from './scrub-secrets';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');
export const InjectRootLogger = () => Inject(ROOT_LOGGER);
export type RootLogger = PinoInstance;

/**
 * Paths that can carry an API key or an embed secret. The request serializer below already
 * logs no headers and no query strings; these paths are a second line of defence for anything
 * a developer logs by hand.
 */
export const REDACT_PATHS = [
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'embedUrl',
  '*.embedUrl',
  'url',
  '*.url',
];

export interface LoggingOptions {
  /** Where lines go; stdout by default, stderr for the CLI, a capture stream in tests. */
  destination?: DestinationStream | 1 | 2;
  /**
   * Used instead of the default `info` level: the CLI's output is its answer, and its boot
   * chatter is noise. An explicit debug or trace LOG_LEVEL still wins.
   */
  quietLevel?: 'warn' | 'error';
}

/** Options both loggers share: the level, the process name, ISO timestamps, `level` as a label. */
function baseOptions(config: AppConfig, app: string, options: LoggingOptions): pino.LoggerOptions {
  const level = options.quietLevel && config.logLevel === 'info' ? options.quietLevel : config.logLevel;
  return {
    level,
    base: { app },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/**
 * Lines to stdout are written in batches of at least this many bytes (below sonic-boom's 16 KiB
 * maximum write), and at the latest after
 * LOG_FLUSH_INTERVAL_MS. Each write is a system call handed to libuv's thread pool, and on this
 * service's virtual machines it cost the api about 5 % of its CPU when polling with one write
 * per line (docs/performance.md). pino flushes what is buffered when the process exits; a
 * `kill -9` loses at most the last interval's lines.
 */
export const LOG_BUFFER_BYTES = 8192;
export const LOG_FLUSH_INTERVAL_MS = 100;

function destinationOf(options: LoggingOptions): DestinationStream {
  if (typeof options.destination === 'object') return options.destination;
  // The CLI's stderr stays synchronous: its lines must come before its answer.
  if (options.destination === 2) return pino.destination({ dest: 2, sync: true });
  return new BufferedLogDestination(pino.destination({ dest: options.destination ?? 1, sync: false, minLength: LOG_BUFFER_BYTES }));
}

/**
 * Flushes the buffer every LOG_FLUSH_INTERVAL_MS while some of what was written has not reached
 * the file yet. sonic-boom ignores a flush while one of its writes is under way, and after that
 * write leaves what is below its minimum length in the buffer; so the bytes still unwritten are
 * counted (its `write` event reports each write), not merely whether a line came since the last
 * flush: otherwise the last lines before a quiet spell (a process's "listening on" lines) could
 * wait for the next line, indefinitely.
 *
 * Once the application starts shutting down it writes through: a stop on a signal ends by
 * re-raising the signal (ProcessStops), which kills the process without the `exit` event that
 * pino's own final flush waits for, so the last lines (the "shutting down" ones) would otherwise
 * be lost.
 */
export class BufferedLogDestination implements DestinationStream {
  private unwritten = 0;
  private direct = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly out: ReturnType<typeof pino.destination>) {
    out.on('write', (bytes: number) => (this.unwritten -= bytes));
    this.timer = setInterval(() => {
      if (this.unwritten > 0) this.guard(() => this.out.flush());
    }, LOG_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  write(line: string): void {
    this.out.write(line);
    if (this.direct) this.guard(() => this.out.flushSync());
    else this.unwritten += Buffer.byteLength(line);
  }

  /** Writes what is buffered now, and every later line as it comes. */
  writeThrough(): void {
    this.direct = true;
    clearInterval(this.timer);
    this.guard(() => this.out.flushSync());
  }

  private guard(flush: () => void): void {
    try {
      flush();
    } catch {
      // Not ready yet (flushSync before the file descriptor opened: the next write retries) or
      // destroyed meanwhile (stdout closed: nothing left to write to).
    }
  }
}

/**
 * Nest's own account of its wiring: a line per module initialised (InstanceLoader), per
 * controller and route mapped (RoutesResolver, RouterExplorer), and its start (NestFactory,
 * NestApplication): about 190 lines before an api, a worker and a studio say where they listen.
 * They say nothing an operator acts on, so they are written at `debug`.
 */
const WIRING_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);
const INFO = 30;

/** pino's logMethod hook: an `info` line of one of Nest's wiring contexts goes out at `debug`. */
function wiringAtDebug(this: PinoInstance, args: Parameters<pino.LogFn>, method: pino.LogFn, level: number): void {
  const first: unknown = args[0];
  if (level === INFO && typeof first === 'object' && first !== null && WIRING_CONTEXTS.has((first as { context?: string }).context ?? '')) {
    this.debug(...args);
    return;
  }
  method.apply(this, args);
}

export function createRootLogger(
  config: AppConfig,
  app: string,
  options: LoggingOptions = {},
  destination: DestinationStream = destinationOf(options),
): PinoInstance {
  return pino(
    {
      ...baseOptions(config, app, options),
      hooks: { logMethod: wiringAtDebug },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        // Only safe, stable fields: a driver error can carry query parameters. The message and
        // stack are kept for diagnosis, with what looks like a secret taken out.
        err: (e: Error & { code?: unknown }) => ({
          type: e?.name,
          message: scrubSecrets(e?.message),
          code: e?.code,
          stack: scrubSecrets(e?.stack),
        }),
      },
    },
    destination,
  );
}

/**
 * The logger of the one line per request (core/http), to the same destination as the root
 * logger but without its redaction: that line is built from fixed, safe fields only (ids, method,
 * route template, path, status, duration), so walking the redaction paths for every request
 * (about 1.5 % of the api's CPU when polling) protects nothing. Anything else goes to the root logger.
 */
export const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');
export type RequestLogger = PinoInstance;

/** Switches a buffered destination to write-through when shutdown begins (the earliest hook). */
class LogFlusher implements BeforeApplicationShutdown {
  constructor(private readonly out: DestinationStream) {}

  beforeApplicationShutdown(): void {
    if (this.out instanceof BufferedLogDestination) this.out.writeThrough();
  }
}

@Global()
@Module({})
export class LoggingModule {
  static forRoot(app: string, options: LoggingOptions = {}): DynamicModule {
    const destination = Symbol('LOG_DESTINATION');
    const providers = [
      { provide: destination, useFactory: () => destinationOf(options) },
      { provide: LogFlusher, inject: [destination], useFactory: (out: DestinationStream) => new LogFlusher(out) },
      {
        provide: ROOT_LOGGER,
        inject: [AppConfig, destination],
        useFactory: (config: AppConfig, out: DestinationStream) => createRootLogger(config, app, options, out),
      },
      {
        provide: REQUEST_LOGGER,
        inject: [AppConfig, destination],
        useFactory: (config: AppConfig, out: DestinationStream) => pino(baseOptions(config, app, options), out),
      },
    ];
    @Global()
    @Module({ providers, exports: [ROOT_LOGGER, REQUEST_LOGGER] })
    class RootLoggerModule {}

    return {
      module: LoggingModule,
      imports: [
        RootLoggerModule,
        LoggerModule.forRootAsync({
          imports: [RootLoggerModule],
          inject: [ROOT_LOGGER],
          useFactory: (logger: PinoInstance) => ({
            pinoHttp: { logger, autoLogging: false },
            // No per-request middleware. The one line per request is written by the HTTP layer
            // when the response finishes (core/http), knowing the route template and the
            // organization; the few lines logged while serving a request name its requestId
            // themselves. nestjs-pino's
            // middleware would instead give each request a child logger inside an
            // AsyncLocalStorage scope, and on Node 20 that scope turns on promise hooks for every
            // promise of the process: about a tenth of the api's CPU on the polling path
            // (docs/performance.md).
            forRoutes: [],
          }),
        }),
      ],
      exports: [RootLoggerModule, LoggerModule],
    };
  }
}
