import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { ColumnMetadata as TypeOrmColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/** A column's metadata, as the conversions below take it (TypeORM publishes it only by a deep path). */
export type ColumnMetadata = TypeOrmColumnMetadata;

/**
 * Every use of TypeORM beyond its documented API, in one place. The raw-SQL helpers (raw-sql.ts)
 * and the pool reads (pool-query.ts) need three things TypeORM does not publish: the node-postgres
 * pool its Postgres driver holds, and the driver's two value conversions (a column value read
 * from a row, and one written as a parameter) that its own hydration and persistence use, so
 * transformers and column types behave exactly as in its repositories. A TypeORM upgrade that
 * renames or reshapes any of them fails typeorm-internals.spec.ts (the conversions, without a
 * database) and test/service/typeorm-internals.service-spec.ts (the pool), not a query at runtime.
 */

/** The node-postgres pool behind a connected Postgres data source (`PostgresDriver.master`). */
export function connectionPool(ds: DataSource): Pool {
  const pool = (ds.driver as PostgresDriver).master as Pool | undefined;
  if (!pool || typeof pool.query !== 'function')
    throw new Error('TypeORM internals changed: PostgresDriver.master is not a node-postgres pool');
  return pool;
}

/** A value of a result row as the entity property holds it: column type, then transformer. */
export function hydratedValue(ds: DataSource, value: unknown, column: ColumnMetadata): unknown {
  return ds.driver.prepareHydratedValue(value, column);
}

/** A property's value as a statement parameter for its column: transformer, then column type. */
export function persistentValue(ds: DataSource, value: unknown, column: ColumnMetadata): unknown {
  return ds.driver.preparePersistentValue(value, column);
}

/**
 * Builds a data source's entity metadata without connecting (`DataSource.buildMetadatas`): for
 * specs of the raw-SQL helpers, which need the column metadata and no database.
 */
export async function buildMetadataOnly(ds: DataSource): Promise<void> {
  const build = (ds as unknown as { buildMetadatas?: () => Promise<void> }).buildMetadatas;
  if (typeof build !== 'function') throw new Error('TypeORM internals changed: DataSource.buildMetadatas is gone');
  await build.call(ds);
}
