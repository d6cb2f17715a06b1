import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './transformers';
import { buildMetadataOnly, connectionPool, hydratedValue, persistentValue } from './typeorm-internals';

@Entity('gadgets')
class GadgetEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  bytes: number;

  @Column({ type: 'jsonb', nullable: true })
  spec: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/**
 * What the raw-SQL helpers rely on in TypeORM beyond its documented API (typeorm-internals.ts):
 * when an upgrade changes one of these, this fails, not a query in production. The pool behind a
 * connected data source is checked against PostgreSQL in test/service/typeorm-internals.service-spec.ts.
 */
describe('TypeORM internals the raw-SQL helpers use', () => {
  let ds: DataSource;
  const column = (property: string) => ds.getMetadata(GadgetEntity).findColumnWithPropertyName(property)!;

  beforeAll(async () => {
    ds = new DataSource({ type: 'postgres', entities: [GadgetEntity] });
    await buildMetadataOnly(ds);
  });

  it('builds entity metadata without connecting', () => {
    expect(ds.isInitialized).toBe(false);
    expect(ds.getMetadata(GadgetEntity).columns.map((c) => c.databaseName)).toEqual(['id', 'bytes', 'spec', 'created_at']);
  });

  it('hydrates a row value through the column type and then the transformer', () => {
    // node-postgres returns bigint as a string and timestamptz as a Date; jsonb arrives parsed.
    expect(hydratedValue(ds, '9007199254740991', column('bytes'))).toBe(9007199254740991);
    const at = new Date('2026-11-29T12:00:00.000Z');
    expect(hydratedValue(ds, at, column('createdAt'))).toEqual(at);
    expect(hydratedValue(ds, { a: [1, 2] }, column('spec'))).toEqual({ a: [1, 2] });
    expect(hydratedValue(ds, null, column('spec'))).toBeNull();
  });

  it('prepares a parameter through the transformer and then the column type', () => {
    expect(persistentValue(ds, 42, column('bytes'))).toBe(42);
    expect(persistentValue(ds, { a: 1 }, column('spec'))).toBe('{"a":1}');
    const at = new Date('2026-11-29T12:00:00.000Z');
    expect(persistentValue(ds, at, column('createdAt'))).toEqual(at);
  });

  it('refuses to hand out a pool that is not there, naming the internals', () => {
    expect(() => connectionPool(ds)).toThrow('TypeORM internals changed: PostgresDriver.master is not a node-postgres pool');
  });
});
