import IORedis from 'ioredis';
import { Client } from 'pg';
import pino from 'pino';
import { AppConfig } from '../config';

/** How long a booting process waits for PostgreSQL and Redis before it gives up (compose and
 *  Kubernetes start everything at once; a few seconds of a dependency coming up is normal). */
export const BOOT_DEPENDENCY_WAIT_MS = 15_000;

export interface DependencyProblem {
  dependency: 'postgres' | 'redis';
  variable: 'DATABASE_URL' | 'REDIS_URL';
  /** host:port only: the URL itself may carry a password. */
  target: string;
  error: string;
  /** What is wrong, in a few words: "is unreachable", "has no such database", … */
  state: string;
  advice: string;
}

function target(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || defaultPort}`;
  } catch {
    return '(unparseable URL)';
  }
}

function errorCode(e: unknown): string {
  const err = e as { code?: string; errors?: { code?: string }[]; message?: string };
  return err.code ?? err.errors?.[0]?.code ?? (err.message?.includes('timeout') ? 'ETIMEDOUT' : 'error');
}

async function checkPostgres(url: string): Promise<DependencyProblem | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (e) {
    const code = errorCode(e);
    const state =
      code === '3D000'
        ? 'has no database of the name in'
        : code === '28P01' || code === '28000'
          ? 'refused the credentials in'
          : 'is unreachable, set by';
    const advice =
      code === '3D000'
        ? 'the database in DATABASE_URL does not exist: create and migrate it with `npm run --silent cli -- migrate --create-database`'
        : code === '28P01' || code === '28000'
          ? 'PostgreSQL refused the credentials in DATABASE_URL: fix the user or password there'
          : 'start PostgreSQL there, or set DATABASE_URL to a PostgreSQL that runs (`npm start` starts an embedded one when DATABASE_URL is unset)';
    return { dependency: 'postgres', variable: 'DATABASE_URL', target: target(url, 5432), error: code, state, advice };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkRedis(url: string): Promise<DependencyProblem | null> {
  const redis = new IORedis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The connect() rejection says only "Connection is closed"; the socket's error has the code.
  let socketError: unknown = null;
  redis.on('error', (e) => (socketError ??= e));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (e) {
    const code = errorCode(socketError ?? e);
    const auth = /NOAUTH|WRONGPASS/.test(String((e as Error).message));
    const state = auth ? 'refused the credentials in' : 'is unreachable, set by';
    const advice = auth
      ? 'Redis refused the credentials in REDIS_URL: fix the password there'
      : 'start Redis there (apt-get install redis-server, brew install redis, or docker run -p 6379:6379 redis:7), or set REDIS_URL to a Redis that runs';
    return { dependency: 'redis', variable: 'REDIS_URL', target: target(url, 6379), error: code, state, advice };
  } finally {
    redis.disconnect();
  }
}

/** One problem in a sentence: the dependency, where, the variable that names it, what to do. */
export function describeDependencyProblem(p: DependencyProblem): string {
  const name = p.dependency === 'postgres' ? 'PostgreSQL' : 'Redis';
  return `${name} at ${p.target} ${p.state} ${p.variable} (${p.error}): ${p.advice}.`;
}

/** Both dependencies, retried until they answer or `waitMs` passes; the problems left, if any. */
export async function checkDependencies(config: AppConfig, waitMs = BOOT_DEPENDENCY_WAIT_MS): Promise<DependencyProblem[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const problems = (await Promise.all([checkPostgres(config.database.url), checkRedis(config.redis.url)])).filter(
      (p): p is DependencyProblem => p !== null,
    );
    // A missing database or refused credentials will not fix themselves by waiting.
    const permanent = problems.some((p) => ['3D000', '28P01', '28000'].includes(p.error));
    if (problems.length === 0 || permanent || Date.now() >= deadline) return problems;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Run before the Nest application is built: without it an unreachable database shows up as
 * TypeORM's retries and an `ECONNREFUSED` stack in Nest's text logger, which names neither the
 * variable nor the fix. Instead each unreachable dependency is one JSON log line (the same shape
 * as every other line) naming the variable and what to do, and the process exits 1.
 */
export async function exitUnlessDependenciesAnswer(config: AppConfig, app: string, waitMs = BOOT_DEPENDENCY_WAIT_MS): Promise<void> {
  const problems = await checkDependencies(config, waitMs);
  if (problems.length === 0) return;
  const logger = pino(
    { base: { app }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    pino.destination({ dest: 1, sync: true }),
  );
  for (const p of problems) {
    logger.fatal(
      { dependency: p.dependency, variable: p.variable, target: p.target, error: p.error },
      `${describeDependencyProblem(p)} The ${app} stops.`,
    );
  }
  process.exit(1);
}

/** The settings that name a listening port, and whether 0 (any free port) is allowed for each. */
export type PortVariable = 'API_PORT' | 'STUDIO_PORT' | 'WORKER_PORT' | 'API_OPS_PORT' | 'STUDIO_OPS_PORT';
const ANY_FREE_PORT_ALLOWED: ReadonlySet<PortVariable> = new Set(['WORKER_PORT', 'API_OPS_PORT', 'STUDIO_OPS_PORT']);

/**
 * Runs `listen`; a port in use fails naming the variable that chose it, so the process's last
 * word says what to change (exitOnBootFailure).
 */
export async function listeningOn<T>(variable: PortVariable, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === 'EADDRINUSE') Object.assign(e as object, { portVariable: variable });
    throw e;
  }
}

function portInUse(err: NodeJS.ErrnoException & { port?: number; portVariable?: PortVariable }): string {
  const port = err.port ?? '';
  const variable = err.portVariable;
  if (!variable) return `port ${port} is in use by another process`;
  const anyFree = ANY_FREE_PORT_ALLOWED.has(variable) ? ` (0: any free port)` : '';
  return (
    `port ${port} (${variable}) is in use by another process: set ${variable} to a free port${anyFree}. ` +
    'Beside `npm start`, `npm run start:replica -- worker|api|studio` picks free ports by itself'
  );
}

/**
 * The last word of a process that could not start (a port in use, a module that failed to
 * build): one JSON line with the reason instead of an unhandled rejection's stack on stderr.
 */
export function exitOnBootFailure(app: string, e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  const logger = pino(
    { base: { app }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    pino.destination({ dest: 1, sync: true }),
  );
  const reason = err.code === 'EADDRINUSE' ? portInUse(err) : (err.message ?? String(e));
  logger.fatal({ err, error: err.code ?? 'error' }, `The ${app} failed to start: ${reason}`);
  process.exit(1);
}
