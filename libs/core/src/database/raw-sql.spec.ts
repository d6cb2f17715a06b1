import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { entityColumns, rawInsert, rawInsertAll, rawQuery, rawUpdate } from './raw-sql';
import { bigintAsNumber } from './transformers';
import { buildMetadataOnly } from './typeorm-internals';

@Entity('widgets')
class WidgetEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  bytes: number;

  @Column({ type: 'jsonb', nullable: true })
  spec: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** A query runner that answers every statement with `answer` and keeps what it was sent. */
function fakeRunner(answer: { records: unknown[]; affected?: number }) {
  const sent: { sql: string; params: unknown[] }[] = [];
  const runner = {
    released: false,
    query: (sql: string, params: unknown[]) => {
      sent.push({ sql, params });
      return Promise.resolve(answer);
    },
    release() {
      runner.released = true;
      return Promise.resolve();
    },
  };
  return { runner, sent };
}

describe('raw SQL through entity metadata', () => {
  let sut: DataSource;

  beforeAll(async () => {
    // Metadata only: nothing connects (the query runner is faked where a statement runs).
    sut = new DataSource({ type: 'postgres', entities: [WidgetEntity] });
    await buildMetadataOnly(sut);
  });

  it('renders column lists from the metadata, aliased and in the order asked for', () => {
    expect(entityColumns(sut, WidgetEntity).sql).toBe('id, owner_id, bytes, spec, created_at');
    expect(entityColumns(sut, WidgetEntity, { alias: 'w', only: ['createdAt', 'ownerId'] }).sql).toBe('w.created_at, w.owner_id');
  });

  it('leaves out the columns named in `except`, of all or of `only`, and names their properties', () => {
    const live = entityColumns(sut, WidgetEntity, { except: ['spec', 'createdAt'] });
    expect(live.sql).toBe('id, owner_id, bytes');
    expect(live.properties).toEqual(['id', 'ownerId', 'bytes']);
    expect(entityColumns(sut, WidgetEntity, { only: ['bytes', 'id', 'spec'], except: ['spec'] }).names).toEqual(['bytes', 'id']);
    expect(() => entityColumns(sut, WidgetEntity, { except: ['nope' as keyof WidgetEntity] })).toThrow(
      'WidgetEntity has no column property nope',
    );
  });

  it('refuses a property that is not a column', () => {
    expect(() => entityColumns(sut, WidgetEntity, { only: ['nope' as keyof WidgetEntity] })).toThrow(
      'WidgetEntity has no column property nope',
    );
  });

  it('maps a result row to an entity instance through the column transformers, selected properties only', () => {
    const at = new Date('2026-11-27T12:00:00Z');
    const widget = entityColumns(sut, WidgetEntity, { only: ['id', 'bytes', 'createdAt'] }).toEntity({
      id: 'w_1',
      bytes: '9007199254740',
      created_at: at,
    });
    expect(widget).toBeInstanceOf(WidgetEntity);
    expect({ ...widget }).toStrictEqual({ id: 'w_1', bytes: 9007199254740, createdAt: at });
  });

  it('inserts only the properties set, converted as TypeORM persists them, and passes the tail on', async () => {
    const { runner, sent } = fakeRunner({ records: [], affected: 1 });
    jest.spyOn(sut, 'createQueryRunner').mockReturnValue(runner as never);
    const result = await rawInsert(sut, WidgetEntity, { id: 'w_1', ownerId: 'org_1', bytes: 4, spec: { a: 1 } }, 'ON CONFLICT DO NOTHING');
    expect(sent).toEqual([
      {
        sql: 'INSERT INTO widgets (id, owner_id, bytes, spec) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        params: ['w_1', 'org_1', 4, '{"a":1}'],
      },
    ]);
    expect(result.affected).toBe(1);
    // Its own connection, given back: the statement belonged to no transaction.
    expect(runner.released).toBe(true);
  });

  it('inserts rows of several tables in one statement, numbering the parameters across them', async () => {
    const { runner, sent } = fakeRunner({ records: [], affected: 1 });
    jest.spyOn(sut, 'createQueryRunner').mockReturnValue(runner as never);
    const affected = await rawInsertAll(sut, [
      { entity: WidgetEntity, value: { id: 'w_1', ownerId: 'org_1', bytes: 4 } },
      { entity: WidgetEntity, value: { id: 'w_2', ownerId: 'org_1', bytes: 5, spec: null } },
    ]);
    expect(sent).toEqual([
      {
        sql:
          'WITH w0 AS (INSERT INTO widgets (id, owner_id, bytes) VALUES ($1, $2, $3)) ' +
          'INSERT INTO widgets (id, owner_id, bytes, spec) VALUES ($4, $5, $6, $7)',
        params: ['w_1', 'org_1', 4, 'w_2', 'org_1', 5, null],
      },
    ]);
    expect(affected).toBe(1);
  });

  it("updates only the properties set, converted as TypeORM persists them, numbered after the tail's parameters", async () => {
    const { runner, sent } = fakeRunner({ records: [], affected: 2 });
    jest.spyOn(sut, 'createQueryRunner').mockReturnValue(runner as never);
    const result = await rawUpdate(sut, WidgetEntity, { bytes: 7, spec: { b: [1] }, ownerId: undefined }, 'WHERE owner_id = $1', ['org_1']);
    expect(sent).toEqual([{ sql: 'UPDATE widgets SET bytes = $2, spec = $3 WHERE owner_id = $1', params: ['org_1', 7, '{"b":[1]}'] }]);
    expect(result.affected).toBe(2);
    await expect(rawUpdate(sut, WidgetEntity, {}, 'WHERE true')).rejects.toThrow('rawUpdate of WidgetEntity sets nothing');
  });

  it("answers rows and the statement's row count, in the caller's transaction when given its manager", async () => {
    const { runner, sent } = fakeRunner({ records: [{ id: 'w_1', owner_id: 'org_1' }], affected: 3 });
    const tx = sut.createEntityManager(runner as never);
    const createQueryRunner = jest.spyOn(sut, 'createQueryRunner');
    createQueryRunner.mockClear();
    const columns = entityColumns(tx, WidgetEntity, { only: ['id', 'ownerId'] });
    const widgets = await columns.rows(tx, `UPDATE widgets SET bytes = 0 RETURNING ${columns.sql}`, []);
    expect(widgets.map((w) => ({ ...w }))).toEqual([{ id: 'w_1', ownerId: 'org_1' }]);
    expect(await rawQuery(tx, 'DELETE FROM widgets', [])).toEqual({ rows: [{ id: 'w_1', owner_id: 'org_1' }], affected: 3 });
    expect(sent.map((s) => s.sql)).toEqual(['UPDATE widgets SET bytes = 0 RETURNING id, owner_id', 'DELETE FROM widgets']);
    expect(createQueryRunner).not.toHaveBeenCalled();
    // The transaction's connection stays the caller's to release.
    expect(runner.released).toBe(false);
  });
});
