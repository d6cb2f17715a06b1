'use strict';
// npm run bench:backlog [-- --small 100 --large 100000 --samples 20 --warmup 3 --rounds 2 --poll-ms 20 --concurrency 4]
//
// Admission whose cost does not grow with a backlog (docs/architecture.md, "Fair share"). A heavy
// organization, limited to 1 generation at a time and running one, keeps `--small` and then
// `--large` generations waiting; a light organization creates plain-prompt scenes one at a time,
// each polled every `--poll-ms` ms until `succeeded`. Its time from POST to `succeeded` is the
// figure, with the small backlog and with the large one, in the same run, on the same database,
// api and worker: target large ÷ small ≤ 1.2 (p50); the bench exits 1 when it is missed.
// Phases alternate small, large, small, large… (`--rounds` of each): the heavy backlog grows to
// `--large` by copies of one waiting generation the api accepted (its scene, operation and
// idempotency record, every column as the api wrote it, with new ids; the day's usage and the
// organization's backlog counts raised by as many), and shrinks back to `--small` by cancelling the
// copies as the cancel route would (failed with `cancelled`, their scenes failed, counted
// cancelled, off the backlog). The heavy organization's running generation is admitted without a
// job, and the worker's RECONCILE_GRACE_MS is an hour: it holds the heavy organization's one slot
// for the whole run, so every admission round meets the whole backlog and admits none of it —
// the case in which a round's cost grew with the backlog before.
// Also printed: the grouped query admission ran before (every waiting operation, per
// organization) on the same two backlogs, for scale.

const h = require('./lib/harness');
const { waitForQuiet } = require('./lib/machine');
const { Client } = require('pg');
const http = require('node:http');
const { monotonicFactory } = require('ulid');
const { randomUUID } = require('node:crypto');

const { fmt, log, percentile, sleep } = h;

const TARGET_RATIO = 1.2;

const options = h.parseArgs(process.argv.slice(2), {
  small: 100,
  large: 100_000,
  samples: 20,
  warmup: 3,
  rounds: 2,
  pollMs: 20,
  concurrency: 4,
  quietPercent: 25,
  quietTimeout: 60,
});

const ulid = monotonicFactory();

/** The query every admission round ran before the counts (for scale only). */
const GROUPED_BEFORE = `SELECT w.organization_id, w.waiting, w.oldest_at, t.last_turn,
         (SELECT count(*)::int FROM operations r
           WHERE r.organization_id = w.organization_id AND r.status = 'processing' AND r.admitted_at IS NOT NULL) AS running
    FROM (SELECT organization_id, count(*)::int AS waiting, min(created_at) AS oldest_at
            FROM operations WHERE status = 'processing' AND admitted_at IS NULL
           GROUP BY organization_id) w
    LEFT JOIN admission_turns t ON t.organization_id = w.organization_id`;

h.runBench(async () => {
  h.ensureBuilt();
  if (!(options.large > options.small && options.small >= 1)) throw new Error('--large must be more than --small, and --small at least 1');
  const stack = await h.prepareStack({ apps: ['api', 'worker'], logLevel: 'warn' });
  Object.assign(stack.env, { WORKER_CONCURRENCY: String(options.concurrency) });
  const heavy = h.cliJson(['org', 'create', '--name', 'heavy', '--test'], stack.env);
  h.cliJson(
    [
      'org',
      'limits',
      '--org',
      heavy.organizationId,
      '--max-concurrent-generations',
      '1',
      '--max-waiting-generations',
      String(options.large + 10),
    ],
    stack.env,
  );
  const heavyAuth = `Bearer ${heavy.apiKey}`;
  const api = await h.startApp(stack, 'api');
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // The heavy organization's running generation, admitted as admission would admit it (its job
    // never enqueued: no worker runs yet, and the reconciler's grace outlasts the run).
    const running = await h.createOperation({ port: stack.ports.api, authorization: heavyAuth, prompt: 'heavy, running' });
    await db.query('BEGIN');
    await db.query(`UPDATE operations SET admitted_at = now(), updated_at = now() WHERE id = $1`, [running]);
    await db.query(`UPDATE organization_backlogs SET waiting = waiting - 1, running = running + 1 WHERE organization_id = $1`, [
      heavy.organizationId,
    ]);
    await db.query('COMMIT');
    // The template every waiting copy is made from: one generation the api accepted.
    const template = await h.createOperation({ port: stack.ports.api, authorization: heavyAuth, prompt: 'heavy, waiting' });
    await grow(db, heavy.organizationId, template, options.small - 1);
    await checkCounts(db, heavy.organizationId, options.small);

    const worker = await h.startApp(stack, 'worker', { env: { RECONCILE_GRACE_MS: '3600000' } });
    log(`worker (${options.concurrency} slots); heavy organization: 1 running, ${options.small} waiting`);
    const samples = { small: [], large: [] };
    const grouped = { small: [], large: [] };
    const sizes = [];
    for (let round = 1; round <= options.rounds; round++) sizes.push('small', 'large');
    let waiting = options.small;
    for (const [i, size] of sizes.entries()) {
      const target = options[size];
      if (target > waiting) await grow(db, heavy.organizationId, template, target - waiting);
      else if (target < waiting) await shrink(db, heavy.organizationId, waiting - target);
      waiting = target;
      await checkCounts(db, heavy.organizationId, waiting);
      await db.query('VACUUM ANALYZE operations');
      const quiet = await waitForQuiet({ maxBusy: options.quietPercent / 100, timeoutMs: options.quietTimeout * 1000 });
      if (!quiet.quiet) log(`the machine is still ${fmt(quiet.busy * 100, 0)}% busy without us; measuring anyway`);
      grouped[size].push(await timeQuery(db, GROUPED_BEFORE));
      log(`phase ${i + 1}/${sizes.length}: ${waiting} heavy generations waiting; ${options.warmup} + ${options.samples} light scenes`);
      const measured = await lightScenes(stack, agent);
      samples[size].push(...measured);
      log(
        `  POST → succeeded p50 ${fmt(
          percentile(
            measured.map((s) => s.totalMs),
            50,
          ),
          0,
        )} ms, ` +
          `server accepted → completed p50 ${fmt(
            percentile(
              measured.map((s) => s.serverMs),
              50,
            ),
            0,
          )} ms`,
      );
      const { rows } = await db.query(`SELECT waiting, running FROM organization_backlogs WHERE organization_id = $1`, [
        heavy.organizationId,
      ]);
      if (rows[0].waiting !== waiting || rows[0].running !== 1) throw new Error(`the heavy organization moved: ${JSON.stringify(rows[0])}`);
    }
    await worker.stop();
    return report(samples, grouped);
  } finally {
    agent.destroy();
    await db.end();
    await api.stop();
  }
});

/** `count` copies of the template's waiting generation, every row as the api wrote it, new ids. */
async function grow(db, organizationId, templateOperationId, count) {
  const started = performance.now();
  const BATCH = 10_000;
  for (let done = 0; done < count; done += BATCH) {
    const n = Math.min(BATCH, count - done);
    const sceneIds = [];
    const operationIds = [];
    const keys = [];
    for (let i = 0; i < n; i++) {
      sceneIds.push(`scn_${ulid()}`);
      operationIds.push(`op_${ulid()}`);
      keys.push(randomUUID());
    }
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO scenes
       SELECT (jsonb_populate_record(NULL::scenes, to_jsonb(s) || jsonb_build_object('id', c.scene_id, 'creating_operation_id', c.operation_id))).*
         FROM scenes s, unnest($2::text[], $3::text[]) AS c (scene_id, operation_id)
        WHERE s.id = (SELECT scene_id FROM operations WHERE id = $1)`,
      [templateOperationId, sceneIds, operationIds],
    );
    await db.query(
      `INSERT INTO operations
       SELECT (jsonb_populate_record(NULL::operations, to_jsonb(o) || jsonb_build_object('id', c.operation_id, 'scene_id', c.scene_id))).*
         FROM operations o, unnest($2::text[], $3::text[]) AS c (scene_id, operation_id)
        WHERE o.id = $1`,
      [templateOperationId, sceneIds, operationIds],
    );
    await db.query(
      `INSERT INTO idempotency_keys
       SELECT (jsonb_populate_record(NULL::idempotency_keys, to_jsonb(k) || jsonb_build_object(
                 'key', c.key, 'result', k.result || jsonb_build_object('operationId', c.operation_id)))).*
         FROM idempotency_keys k, unnest($2::uuid[], $3::text[]) AS c (key, operation_id)
        WHERE k.result ->> 'operationId' = $1`,
      [templateOperationId, keys, operationIds],
    );
    await db.query(
      `UPDATE usage_days SET generations_started = generations_started + $2
        WHERE organization_id = $1 AND day = (SELECT (created_at AT TIME ZONE 'UTC')::date FROM operations WHERE id = $3)`,
      [organizationId, n, templateOperationId],
    );
    await db.query(`UPDATE organization_backlogs SET waiting = waiting + $2 WHERE organization_id = $1`, [organizationId, n]);
    await db.query('COMMIT');
  }
  log(`  added ${count} waiting generations in ${fmt((performance.now() - started) / 1000, 1)} s`);
}

/** Cancels the `count` newest waiting copies as the cancel route would, in one transaction. */
async function shrink(db, organizationId, count) {
  await db.query('BEGIN');
  const { rows } = await db.query(
    `WITH gone AS (
       UPDATE operations SET status = 'failed', error_code = 'cancelled', error_message = 'The operation was cancelled.',
              error_retryable = true, stage = NULL, updated_at = now(), completed_at = now()
        WHERE id IN (SELECT id FROM operations WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL
                      ORDER BY created_at DESC, id DESC LIMIT $2)
       RETURNING scene_id)
     UPDATE scenes SET status = 'failed', updated_at = now() WHERE id IN (SELECT scene_id FROM gone) RETURNING id`,
    [organizationId, count],
  );
  if (rows.length !== count) throw new Error(`cancelled ${rows.length} of ${count}`);
  await db.query(
    `INSERT INTO usage_days AS u (organization_id, day, generations_cancelled) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2)
     ON CONFLICT (organization_id, day) DO UPDATE SET generations_cancelled = u.generations_cancelled + EXCLUDED.generations_cancelled`,
    [organizationId, count],
  );
  await db.query(`UPDATE organization_backlogs SET waiting = waiting - $2 WHERE organization_id = $1`, [organizationId, count]);
  await db.query('COMMIT');
  log(`  cancelled ${count} waiting generations`);
}

/** The counts admission reads must be the operations' own, or the bench measures something else. */
async function checkCounts(db, organizationId, waiting) {
  const { rows } = await db.query(
    `SELECT b.waiting, b.running,
            (SELECT count(*)::int FROM operations WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL) AS real_waiting,
            (SELECT count(*)::int FROM operations WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NOT NULL) AS real_running
       FROM organization_backlogs b WHERE b.organization_id = $1`,
    [organizationId],
  );
  const r = rows[0];
  if (r.waiting !== waiting || r.real_waiting !== waiting || r.running !== 1 || r.real_running !== 1) {
    throw new Error(
      `the heavy organization's counts disagree with its operations: ${JSON.stringify(r)} (expected ${waiting} waiting, 1 running)`,
    );
  }
}

async function timeQuery(db, sql) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await db.query(sql);
    times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

/** The light organization's scenes, one at a time: POST, then GET every pollMs until succeeded. */
async function lightScenes(stack, agent) {
  const out = [];
  for (let i = 0; i < options.warmup + options.samples; i++) {
    const t0 = performance.now();
    const created = await h.createScene({
      port: stack.ports.api,
      authorization: stack.authorization,
      agent,
      prompt: 'a quiet harbour at dawn',
    });
    if (created.status !== 202) throw new Error(`POST /v1/scenes answered ${created.status}: ${created.text}`);
    let op;
    for (;;) {
      const r = await h.request(stack.ports.api, 'GET', created.headers.location, {
        agent,
        headers: { authorization: stack.authorization },
      });
      if (r.status !== 200) throw new Error(`GET ${created.headers.location} answered ${r.status}: ${r.text}`);
      op = r.json;
      if (op.status !== 'processing') break;
      if (performance.now() - t0 > 30_000) throw new Error(`${op.operationId} still processing after 30 s`);
      await sleep(options.pollMs);
    }
    if (op.status !== 'succeeded') throw new Error(`${op.operationId} ended ${op.status}: ${JSON.stringify(op)}`);
    if (i >= options.warmup) {
      out.push({ totalMs: performance.now() - t0, serverMs: Date.parse(op.completedAt) - Date.parse(op.createdAt) });
    }
  }
  return out;
}

function report(samples, grouped) {
  const row = (size) => {
    const total = samples[size].map((s) => s.totalMs);
    const server = samples[size].map((s) => s.serverMs);
    return [
      `${options[size]} waiting`,
      String(total.length),
      `${fmt(percentile(total, 50), 0)} ms`,
      `${fmt(percentile(total, 90), 0)} ms`,
      `${fmt(percentile(server, 50), 0)} ms`,
      `${fmt(percentile(grouped[size], 50), 1)} ms`,
    ];
  };
  const p50 = (size) =>
    percentile(
      samples[size].map((s) => s.totalMs),
      50,
    );
  const ratio = p50('large') / p50('small');
  const passed = ratio <= TARGET_RATIO;
  process.stdout.write(
    [
      '',
      `Another organization's scene with a heavy organization's backlog of ${options.small} and of ${options.large} waiting ` +
        `(limit 1 at a time, running 1), ${options.rounds} × ${options.samples} scenes per size, polled every ${options.pollMs} ms`,
      '',
      h.table([
        ['heavy backlog', 'light scenes', 'POST → succeeded p50', 'p90', 'server accepted → completed p50', 'the grouped query of before'],
        row('small'),
        row('large'),
      ]),
      '',
      h.table([
        ['target', 'measured', 'target', 'result'],
        [`POST → succeeded p50, ${options.large} ÷ ${options.small} waiting`, fmt(ratio, 2), `≤ ${TARGET_RATIO}`, passed ? 'PASS' : 'FAIL'],
      ]),
      '',
    ].join('\n'),
  );
  return passed ? 0 : 1;
}
