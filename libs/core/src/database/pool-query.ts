import type { QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { connectionPool } from './typeorm-internals';

/**
 * One read statement straight on TypeORM's own connection pool, without a query runner: for the
 * hottest reads only (the polling path), where the query runner's checkout, hooks and result
 * wrapping cost about 70 µs of api CPU per request on the bench machine (docs/performance.md).
 * It takes any free connection, so never use it for a statement that belongs to a transaction.
 */
export async function poolQuery<T extends QueryResultRow>(db: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  return (await connectionPool(db).query<T>(sql, params)).rows;
}

/** Connections of TypeORM's pool: open, idle, and callers waiting for one. */
export function poolConnections(db: DataSource): { total: number; idle: number; waiting: number } {
  const pool = connectionPool(db);
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}
