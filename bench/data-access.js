#!/usr/bin/env node
'use strict';
// npm run bench:data-access [-- --n 2000 --rounds 3]
//
// The one data-access mechanism against the other one the repositories used to mix in
// (docs/architecture.md, "Data access"; docs/performance.md, "Data access"). For each kind of
// statement a repository runs — read one, read many, insert, update under a lock, upsert, batch —
// the same statement on the same rows, `n` times one after another, two ways:
//
//   typeorm: the entity's TypeORM Repository, or its query builder where the repository API
//            cannot say it (a row lock), as the repositories did;
//   raw:     the raw-SQL helpers of libs/core/src/database (entityColumns, rawQuery, rawInsert,
//            rawUpdate; poolQuery for the read on the pool), as every repository does now.
//
// Both run in this process on the compiled code in dist/, on a throw-away migrated database, with
// the same data source and pool; rounds alternate the order. Printed per kind and way: this
// process's CPU per statement (µs, median of the rounds: the api's and worker's cost) and
// statements per second (one at a time: the latency a request pays). The exit code is 1 when raw
// is worse than typeorm by more than 10 % on CPU for any kind.

const { performance } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');
const { join } = require('node:path');
const h = require('./lib/harness');

const args = h.parseArgs(process.argv.slice(2), { n: 2000, rounds: 3 });

h.runBench(async () => {
  h.ensureBuilt();
  const stack = await h.prepareStack({ apps: ['api'], note: ', no api started: the statements run in this process' });
  const dist = (p) => require(join(h.ROOT, 'dist', p));
  const { DataSource, In } = require('typeorm');
  const core = dist('libs/core/src');
  const { entityColumns, rawQuery, rawInsert, rawInsertAll, rawUpdate, poolQuery, runInTransaction } = core;
  const { OperationEntity } = dist('libs/operations/src/operation.entity');
  const { AdmissionTurnEntity } = dist('libs/operations/src/admission-turn.entity');
  const { SceneEntity } = dist('libs/scenes/src/scene.entity');
  const { PendingBlobEntity } = dist('libs/core/src/blob-store/pending-blob.entity');

  const ds = await new DataSource({
    type: 'postgres',
    url: stack.db.url,
    entities: [OperationEntity, AdmissionTurnEntity, SceneEntity, PendingBlobEntity],
    extra: { max: 4 },
  }).initialize();
  h.onCleanup('close the data source', () => ds.destroy());

  // One scene with 200 processing operations of the organization: what the reads and updates hit.
  const org = stack.organizationId;
  const now = new Date();
  const sceneId = `scn_bench_${randomUUID()}`;
  const opIds = Array.from({ length: 200 }, () => `op_bench_${randomUUID()}`);
  const operation = (id) => ({
    id,
    organizationId: org,
    sceneId,
    kind: 'scene.create',
    status: 'processing',
    instruction: null,
    stage: 'queued',
    progress: null,
    createdAt: now,
    updatedAt: now,
  });
  await rawInsertAll(ds, [
    {
      entity: SceneEntity,
      value: {
        id: sceneId,
        organizationId: org,
        status: 'generating',
        prompt: 'bench',
        creatingOperationId: opIds[0],
        createdAt: now,
        updatedAt: now,
      },
    },
    { entity: OperationEntity, value: operation(opIds[0]) },
  ]);
  for (const id of opIds.slice(1)) await rawInsert(ds, OperationEntity, operation(id));
  const repo = ds.getRepository(OperationEntity);
  const all = entityColumns(ds, OperationEntity, { alias: 'o' });
  const batch = opIds.slice(0, 50);
  let i = 0;
  const pick = () => opIds[i++ % opIds.length];

  /** Each kind: [name, typeorm, raw]; every function runs one statement (or one transaction). */
  const kinds = [
    [
      'read one (by id)',
      () => repo.findOne({ where: { id: pick() } }),
      async () => (await all.rows(ds, `SELECT ${all.sql} FROM operations o WHERE o.id = $1`, [pick()]))[0] ?? null,
    ],
    [
      'read one on the pool',
      () => repo.findOne({ where: { id: pick() } }),
      async () => {
        const rows = await poolQuery(ds, `SELECT ${all.sql} FROM operations o WHERE o.id = $1`, [pick()]);
        return rows.length === 0 ? null : all.toEntity(rows[0]);
      },
    ],
    [
      'read many (20, ordered)',
      () => repo.find({ where: { organizationId: org, status: 'processing' }, order: { createdAt: 'ASC', id: 'ASC' }, take: 20 }),
      () =>
        all.rows(
          ds,
          `SELECT ${all.sql} FROM operations o WHERE o.organization_id = $1 AND o.status = 'processing'
            ORDER BY o.created_at, o.id LIMIT 20`,
          [org],
        ),
    ],
    [
      'insert',
      () => ds.getRepository(PendingBlobEntity).insert({ key: `bench/${randomUUID()}`, createdAt: new Date() }),
      () => rawInsert(ds, PendingBlobEntity, { key: `bench/${randomUUID()}`, createdAt: new Date() }),
    ],
    [
      'update under a lock (transaction)',
      () =>
        ds.transaction(async (m) => {
          const id = pick();
          await m.getRepository(OperationEntity).createQueryBuilder('o').setLock('pessimistic_write').where('o.id = :id', { id }).getOne();
          await m.getRepository(OperationEntity).update({ id }, { updatedAt: new Date() });
        }),
      () =>
        runInTransaction(ds, async (tx) => {
          const id = pick();
          await all.rows(tx, `SELECT ${all.sql} FROM operations o WHERE o.id = $1 FOR UPDATE`, [id]);
          await rawUpdate(tx, OperationEntity, { updatedAt: new Date() }, 'WHERE id = $1', [id]);
        }),
    ],
    [
      'upsert',
      () => ds.getRepository(AdmissionTurnEntity).upsert({ organizationId: org, lastTurn: i++ }, ['organizationId']),
      () =>
        rawInsert(
          ds,
          AdmissionTurnEntity,
          { organizationId: org, lastTurn: i++ },
          'ON CONFLICT (organization_id) DO UPDATE SET last_turn = EXCLUDED.last_turn',
        ),
    ],
    [
      'batch update (50 rows)',
      () => repo.update({ id: In(batch) }, { updatedAt: new Date() }),
      () => rawUpdate(ds, OperationEntity, { updatedAt: new Date() }, 'WHERE id = ANY($1)', [batch]),
    ],
  ];

  // Warm both ways (JIT, prepared metadata, pool connections) before anything is measured.
  for (const [, a, b] of kinds) for (let k = 0; k < 200; k++) (await a(), await b());

  const measure = async (fn) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let k = 0; k < args.n; k++) await fn();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { cpuUs: (cpu.user + cpu.system) / args.n, perSecond: (args.n / wall) * 1000 };
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  const rows = [['kind', 'typeorm µs CPU', 'raw µs CPU', 'raw / typeorm', 'typeorm /s', 'raw /s']];
  let worse = false;
  for (const [name, typeorm, raw] of kinds) {
    const t = [];
    const r = [];
    for (let round = 0; round < args.rounds; round++) {
      if (round % 2 === 0) (t.push(await measure(typeorm)), r.push(await measure(raw)));
      else (r.push(await measure(raw)), t.push(await measure(typeorm)));
    }
    const tc = median(t.map((x) => x.cpuUs));
    const rc = median(r.map((x) => x.cpuUs));
    if (rc > tc * 1.1) worse = true;
    rows.push([
      name,
      h.fmt(tc, 0),
      h.fmt(rc, 0),
      h.fmt(rc / tc, 2),
      h.fmt(median(t.map((x) => x.perSecond)), 0),
      h.fmt(median(r.map((x) => x.perSecond)), 0),
    ]);
  }
  process.stdout.write(`\n${args.n} statements per kind and way, median of ${args.rounds} rounds\n${h.table(rows)}\n`);
  // Keep the statements honest: both ways touched the same rows.
  const { rows: left } = await rawQuery(ds, `SELECT count(*)::int AS n FROM operations WHERE scene_id = $1`, [sceneId]);
  if (left[0].n !== opIds.length) throw new Error(`expected ${opIds.length} operations, found ${left[0].n}`);
  return worse ? 1 : 0;
});
