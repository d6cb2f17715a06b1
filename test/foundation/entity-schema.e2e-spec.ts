import { DataSource, EntityMetadata } from 'typeorm';
import { setUpSuite } from '../support/suite';

/**
 * The entities and the committed migrations describe the same schema. `synchronize` is off, so
 * nothing else would notice an entity that drifted from its table: a wrong type or nullability
 * surfaces as a bad value at run time, a missing column as data raw SQL reads but the entity
 * never maps. Compared here, for every table of a migrated database, with the entities the three
 * processes actually register (each lib's TypeOrmModule.forFeature).
 */
describe('entities and migrations', () => {
  const suite = setUpSuite({ api: {}, studio: {}, worker: {}, org: false });

  interface DbColumn {
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
  }

  const registered = (): Map<string, { metadata: EntityMetadata; ds: DataSource }> => {
    const byTable = new Map<string, { metadata: EntityMetadata; ds: DataSource }>();
    for (const app of [suite.api.app, suite.studio.app, suite.worker]) {
      const ds = app.get(DataSource);
      for (const metadata of ds.entityMetadatas) byTable.set(metadata.tableName, { metadata, ds });
    }
    return byTable;
  };

  const schema = async () => {
    const db = suite.api.app.get(DataSource);
    const tables: { table_name: string }[] = await db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'migrations'`,
    );
    const columns: DbColumn[] = await db.query(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const keys: { table_name: string; column_name: string }[] = await db.query(
      `SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
         JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema
        WHERE c.table_schema = 'public' AND c.constraint_type = 'PRIMARY KEY'`,
    );
    return { tables: tables.map((t) => t.table_name), columns, keys };
  };

  it('every table has exactly one entity, and every entity a table', async () => {
    const { tables } = await schema();
    expect([...registered().keys()].sort()).toEqual([...tables].sort());
  });

  it("every entity's columns match its table's: names, types, nullability, primary key", async () => {
    const { columns, keys } = await schema();
    const byTable = registered();
    expect(byTable.size).toBeGreaterThan(0);
    // Each side rendered as "table.column type [null] [pk]" lines, all tables in one comparison, so
    // a failure names every difference at once.
    const fromEntities: string[] = [];
    const fromDatabase: string[] = [];
    for (const [table, { metadata, ds }] of byTable) {
      for (const c of metadata.columns) {
        const type = ds.driver.normalizeType(c) + (c.isArray ? '[]' : '');
        fromEntities.push(`${table}.${c.databaseName} ${type}${c.isNullable ? ' null' : ''}${c.isPrimary ? ' pk' : ''}`);
      }
      const primary = new Set(keys.filter((k) => k.table_name === table).map((k) => k.column_name));
      for (const c of columns.filter((column) => column.table_name === table)) {
        const type = c.data_type === 'ARRAY' ? `${c.udt_name.slice(1)}[]` : c.data_type;
        fromDatabase.push(
          `${table}.${c.column_name} ${type}${c.is_nullable === 'YES' ? ' null' : ''}${primary.has(c.column_name) ? ' pk' : ''}`,
        );
      }
    }
    expect(fromEntities.sort()).toEqual(fromDatabase.sort());
  });
});
