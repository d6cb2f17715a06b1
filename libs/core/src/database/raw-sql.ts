import { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import { ColumnMetadata, hydratedValue, persistentValue } from './typeorm-internals';
import { managerOf, Tx } from './unit-of-work';

/**
 * Raw SQL on an entity's table without a hand-written column list: for the statements the query
 * builder cannot say or says too slowly (the polling read, SKIP LOCKED claims, UPDATE …
 * RETURNING, CTEs). Column lists are rendered from the entity's metadata, result rows become
 * entity instances through the same column metadata (names, types, transformers) TypeORM's own
 * hydration uses, and values are bound through its persistence conversion. docs/architecture.md,
 * "Data access".
 */

/** Where a statement runs: a transaction (its token), or the pool (the data source). */
type Db = DataSource | Tx | EntityManager;
type EntityClass<T> = new () => T;
/** A result row as node-postgres returns it: column (or `AS`) name to value. */
export type ResultRow = Record<string, unknown>;

export interface ColumnsOptions<K, E = never> {
  /** The table's alias in the statement (`o` renders `o.scene_id`); none by default. */
  alias?: string;
  /** These properties only, in this order; every column by default. */
  only?: readonly K[];
  /** Every column (of `only`, if given) but these: a projection that leaves out a few columns names only those. */
  except?: readonly E[];
}

/** Some of an entity's columns, rendered for SQL and read back from its result rows. */
export interface EntityColumns<T> {
  /** `o.id, o.scene_id, …`: for a SELECT or RETURNING list. */
  readonly sql: string;
  /** The column names alone, in the same order (an INSERT's list). */
  readonly names: readonly string[];
  /** Their entity property names, in the same order (a query builder's `select`). */
  readonly properties: readonly string[];
  /** An entity instance holding the selected properties of one result row. */
  toEntity(row: ResultRow): T;
  toEntities(rows: readonly ResultRow[]): T[];
  /**
   * Runs a raw statement that returns these columns (a SELECT, or an INSERT, UPDATE, DELETE …
   * RETURNING `sql`) and maps its rows, in the caller's transaction when `db` is its manager.
   */
  rows(db: Db, sql: string, params: readonly unknown[]): Promise<T[]>;
}

/** The transaction's manager, or the data source itself (a token is its manager at run time). */
function opened(db: Db): DataSource | EntityManager {
  return db instanceof DataSource ? db : managerOf(db as Tx);
}

function dataSourceOf(db: Db): DataSource {
  const d = opened(db);
  return d instanceof EntityManager ? d.connection : d;
}

/** Per entity, the compiled column sets already asked for (a few per repository). */
const compiled = new WeakMap<EntityMetadata, Map<string, EntityColumns<unknown>>>();

function compile<T>(ds: DataSource, metadata: EntityMetadata, options: ColumnsOptions<string, string>): EntityColumns<T> {
  const byProperty = new Map(metadata.columns.map((c) => [c.propertyName, c]));
  const column = (p: string): ColumnMetadata => {
    const found = byProperty.get(p);
    if (!found) throw new Error(`${metadata.name} has no column property ${p}`);
    return found;
  };
  const left = new Set((options.except ?? []).map(column));
  const columns = (options.only ? options.only.map(column) : metadata.columns).filter((c) => !left.has(c));
  const alias = options.alias ? `${options.alias}.` : '';
  const fields = columns.map((c) => ({ property: c.propertyName, key: c.databaseName, column: c }));
  const proto = (metadata.target as EntityClass<T>).prototype as object;
  const toEntity = (row: ResultRow): T => {
    const entity = Object.create(proto) as Record<string, unknown>;
    for (const f of fields) entity[f.property] = hydratedValue(ds, row[f.key], f.column);
    return entity as T;
  };
  return {
    sql: columns.map((c) => `${alias}${c.databaseName}`).join(', '),
    names: columns.map((c) => c.databaseName),
    properties: columns.map((c) => c.propertyName),
    toEntity,
    toEntities: (rows) => rows.map(toEntity),
    rows: async (db, sql, params) => (await rawQuery(db, sql, params)).rows.map(toEntity),
  };
}

/**
 * The entity's columns (all, or `only` these properties, less any `except`) for raw SQL,
 * compiled once per entity and options.
 */
export function entityColumns<T, K extends keyof T & string = keyof T & string, E extends K = never>(
  db: Db,
  entity: EntityClass<T>,
  options: ColumnsOptions<K, E> = {},
): EntityColumns<Omit<Pick<T, K>, E>> {
  const ds = dataSourceOf(db);
  const metadata = ds.getMetadata(entity);
  let forEntity = compiled.get(metadata);
  if (!forEntity) compiled.set(metadata, (forEntity = new Map<string, EntityColumns<unknown>>()));
  const key = `${options.alias ?? ''}|${options.only?.join(',') ?? '*'}|${options.except?.join(',') ?? ''}`;
  let columns = forEntity.get(key);
  if (!columns) forEntity.set(key, (columns = compile(ds, metadata, options)));
  return columns as EntityColumns<Omit<Pick<T, K>, E>>;
}

/**
 * A raw statement whose result is not an entity (a count, a lock, ids): its rows and how many
 * rows it returned or touched (node-postgres' rowCount). In the caller's transaction when `db` is
 * its manager; otherwise on a pooled connection, like `DataSource.query`.
 */
export async function rawQuery<R extends ResultRow = ResultRow>(
  db: Db,
  sql: string,
  params: readonly unknown[] = [],
): Promise<{ rows: R[]; affected: number }> {
  const d = opened(db);
  const ds = dataSourceOf(d);
  const own = d instanceof EntityManager ? d.queryRunner : undefined;
  const runner = own ?? ds.createQueryRunner();
  try {
    const result = await runner.query(sql, params as unknown[], true);
    const rows = (result.records ?? []) as R[];
    return { rows, affected: result.affected ?? rows.length };
  } finally {
    if (!own) await runner.release();
  }
}

/**
 * Inserts `value` into its entity's table with one plain statement (the creation path's inserts:
 * TypeORM's insert builder cost more CPU than the statement). Only the properties `value` sets
 * (not undefined) are written, so the others take their column defaults; `tail` follows the
 * VALUES list (`ON CONFLICT DO NOTHING RETURNING version`). Returns the rows it returned.
 */
export async function rawInsert<T>(
  db: Db,
  entity: EntityClass<T>,
  value: Partial<T>,
  tail = '',
): Promise<{ rows: ResultRow[]; affected: number }> {
  const params: unknown[] = [];
  const sql = `${insertOf(db, entity, value, params)}${tail ? ` ${tail}` : ''}`;
  return rawQuery(db, sql, params);
}

/**
 * Inserts several rows, each into its entity's table, with one statement (each insert but the last
 * a data-modifying CTE), so a write that spans tables costs one round trip. Written as rawInsert
 * writes each; the foreign keys between them are checked at the statement's end, when every row
 * is there. Returns how many rows the last insert wrote.
 */
export async function rawInsertAll(
  db: Db,
  rows: readonly { entity: EntityClass<unknown>; value: Record<string, unknown> }[],
): Promise<number> {
  const params: unknown[] = [];
  const inserts = rows.map((r) => insertOf(db, r.entity, r.value, params));
  const last = inserts.pop()!;
  const sql = `${inserts.length > 0 ? `WITH ${inserts.map((ins, i) => `w${i} AS (${ins})`).join(', ')} ` : ''}${last}`;
  return (await rawQuery(db, sql, params)).affected;
}

/**
 * Updates the properties `values` sets (not undefined) on its entity's table, converted as
 * TypeORM persists them (transformers, JSON): `UPDATE <table> SET <column> = $n, … <rest>`, where
 * `rest` is the statement's tail as written (`WHERE id = $1 RETURNING …`) with its own parameters
 * `$1…` in `params`; the SET values are numbered after them. Returns the rows it returned and how
 * many it touched.
 */
export async function rawUpdate<T>(
  db: Db,
  entity: EntityClass<T>,
  values: Partial<T>,
  rest: string,
  params: readonly unknown[] = [],
): Promise<{ rows: ResultRow[]; affected: number }> {
  const ds = dataSourceOf(db);
  const metadata = ds.getMetadata(entity);
  const all = [...params];
  const set: string[] = [];
  for (const c of metadata.columns) {
    const v = (values as Record<string, unknown>)[c.propertyName];
    if (v === undefined) continue;
    all.push(persistentValue(ds, v, c));
    set.push(`${c.databaseName} = $${all.length}`);
  }
  if (set.length === 0) throw new Error(`rawUpdate of ${metadata.name} sets nothing`);
  return rawQuery(db, `UPDATE ${metadata.tableName} SET ${set.join(', ')} ${rest}`, all);
}

/** The INSERT of the properties `value` sets into its entity's table, its values appended to `params` (`$n` numbered after them). */
function insertOf<T>(db: Db, entity: EntityClass<T>, value: Partial<T>, params: unknown[]): string {
  const ds = dataSourceOf(db);
  const metadata = ds.getMetadata(entity);
  const names: string[] = [];
  const placeholders: string[] = [];
  for (const c of metadata.columns) {
    const v = (value as Record<string, unknown>)[c.propertyName];
    if (v === undefined) continue;
    names.push(c.databaseName);
    params.push(persistentValue(ds, v, c));
    placeholders.push(`$${params.length}`);
  }
  return `INSERT INTO ${metadata.tableName} (${names.join(', ')}) VALUES (${placeholders.join(', ')})`;
}
