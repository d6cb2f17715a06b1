/**
 * The ports of the PostgreSQL and Redis this run really uses: the machine's (5432, 6379), or the
 * ones global setup started on a bare machine (an embedded PostgreSQL, a redis-server), whose
 * URLs it left in the environment. Fault tests put their proxies in front of these.
 */
export function postgresPort(): number {
  return Number(new URL(process.env.SS_TEST_SERVER_URL ?? 'postgres://127.0.0.1:5432').port || 5432);
}

export function redisPort(): number {
  return Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379);
}
