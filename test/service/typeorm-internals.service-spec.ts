import { connectionPool, poolConnections, poolQuery } from '@app/core';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createTestEnvironment, TestEnvironment } from '../support/environment';

/**
 * The one TypeORM internal that needs a database to check (libs/core/src/database/typeorm-internals.ts):
 * a connected Postgres data source holds a node-postgres pool, which the hot reads (`poolQuery`)
 * and the pool metrics (`poolConnections`) use directly. If a TypeORM upgrade moves it, this
 * fails here rather than the polling path in production.
 */
describe('the node-postgres pool behind a connected TypeORM data source', () => {
  let env: TestEnvironment;
  let ds: DataSource;

  beforeAll(async () => {
    env = await createTestEnvironment();
    ds = await new DataSource({ type: 'postgres', url: env.databaseUrl, poolSize: 3 }).initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await env?.dispose();
  });

  it('is a node-postgres Pool on the data source’s database, sized as configured', async () => {
    const pool = connectionPool(ds);
    expect(pool).toBeInstanceOf(Pool);
    expect((pool as unknown as { options: { max: number } }).options.max).toBe(3);
    const [row] = await poolQuery<{ db: string }>(ds, 'SELECT current_database() AS db', []);
    expect(row.db).toBe(env.databaseName);
  });

  it('counts its connections: one checked out shows as not idle, and comes back', async () => {
    const pool = connectionPool(ds);
    const client = await pool.connect();
    try {
      const busy = poolConnections(ds);
      expect(busy.total).toBeGreaterThanOrEqual(1);
      expect(busy.idle).toBe(busy.total - 1);
      expect(busy.waiting).toBe(0);
    } finally {
      client.release();
    }
    const after = poolConnections(ds);
    expect(after.idle).toBe(after.total);
  });
});
