/**
 * Socket-level failures: the dependency is unreachable or went away mid-request. `EOPENBREAKER`
 * is opossum's answer while a circuit breaker holds calls to a failing dependency back.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'EOPENBREAKER',
]);

/**
 * PostgreSQL's own "not now" answers (SQLSTATE): connection exceptions (class 08), the server
 * shutting down or starting (57P01–57P03), too many connections (53300), out of resources (53…).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[1-3]|53...)$/;

/**
 * What node-postgres, pg-pool and ioredis say when the connection, not the statement, failed.
 * They carry no code for these; their wording has been stable for years.
 */
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error/,
  /^Connection is closed\.?$/,
  /^Command timed out$/,
  /^Stream isn't writeable/,
  /max retries per request limit/,
];

/**
 * Whether an error means a dependency (PostgreSQL, Redis) is down or unreachable, rather than a
 * bug or a bad request: such errors answer `503 unavailable` with `Retry-After`, never 500. Looks
 * through the wrappers TypeORM and others put around the driver's error.
 */
export function isInfrastructureError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const e = current as { code?: unknown; message?: unknown; name?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || POSTGRES_UNAVAILABLE.test(e.code))) return true;
    if (e.name === 'MaxRetriesPerRequestError') return true;
    // TypeORM's answer when a transaction's connection died while the transaction was waiting
    // on something else (an object-store upload, say): the database went away, not our logic.
    if (e.name === 'QueryRunnerProviderAlreadyReleasedError') return true;
    if (typeof e.message === 'string' && CLIENT_MESSAGES.some((m) => m.test(e.message as string))) return true;
    current = e.driverError ?? e.cause;
  }
  return false;
}
