import {
  AppConfig,
  checkDependencies,
  createRootLogger,
  describeDependencyProblem,
  DomainError,
  ErrorCode,
  isInfrastructureError,
  loadConfig,
} from '@app/core';
import { INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { CliImports, CliModule } from './cli.module';

/**
 * Nest's logger for the whole life of a command, wired before the application exists: log lines
 * go to stderr as JSON at `warn` (LOG_LEVEL=debug shows the rest), so stdout carries the answer
 * alone even when building the application fails. (Nest's buffered start-up logs would otherwise
 * be flushed to its own coloured text logger on stdout.)
 */
function cliLogger(config: AppConfig): LoggerService {
  const root = createRootLogger(config, 'cli', { destination: 2, quietLevel: 'warn' });
  return new CliLogger(new PinoLogger({ pinoHttp: { logger: root } }), root.isLevelEnabled('debug'));
}

/** Where Nest and TypeORM report a failed start, which the CLI reports itself. */
const REPORTED_BY_THE_CLI = new Set(['ExceptionHandler', 'TypeOrmModule']);

class CliLogger extends Logger {
  constructor(
    logger: PinoLogger,
    private readonly debugging: boolean,
  ) {
    super(logger, {});
  }

  /**
   * A command that cannot reach its database fails with one message that says what to do (the
   * JSON error, or one line); Nest's and TypeORM's reports of the same error would say it again,
   * with a stack. They still show at LOG_LEVEL=debug.
   */
  override error(message: unknown, ...optionalParams: unknown[]): void {
    if (!this.debugging && REPORTED_BY_THE_CLI.has(String(optionalParams.at(-1)))) return;
    super.error(message, ...optionalParams);
  }
}

/** Database errors that waiting would not fix but that still mean "cannot reach what you named". */
const CONNECTION_REFUSED_BY_SERVER = new Set(['3D000', '28P01', '28000']);

/**
 * An error that came from an unreachable PostgreSQL or Redis, explained: which variable names it,
 * host and port (never the URL: it may hold a password) and what to do. Other errors unchanged.
 */
async function explained(config: AppConfig, e: unknown): Promise<unknown> {
  const code = (e as { code?: unknown })?.code;
  if (!isInfrastructureError(e) && !(typeof code === 'string' && CONNECTION_REFUSED_BY_SERVER.has(code))) return e;
  const problems = await checkDependencies(config, 0);
  if (problems.length === 0) return e;
  return new DomainError(ErrorCode.Unavailable, problems.map(describeDependencyProblem).join(' '));
}

/**
 * Runs `fn` in an application context made of core and `imports`. The configuration is loaded
 * here, after the command's libs were imported, so their settings are validated with the rest.
 * One attempt to connect: a command says at once that it cannot reach its database.
 */
export async function withContext<T>(imports: CliImports, fn: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(CliModule.forRoot(config, imports), {
      logger: cliLogger(config),
      abortOnError: false,
    });
  } catch (e) {
    throw await explained(config, e);
  }
  try {
    return await fn(app);
  } catch (e) {
    throw await explained(config, e);
  } finally {
    await app.close();
  }
}
