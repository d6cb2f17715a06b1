'use strict';
// npm run bench [-- --connections 50 --duration 10 --warmup 3 --rounds 3 --scenes 30 --poll-ms 20]
//               [-- --compare-dist /path/to/other/dist --compare-label name]
//               [-- --api-node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"]   # both api builds
//               [-- --keep-log]   # keep the api's stdout (its request log, and --trace-gc's lines) after the run
//
// The partner API's two hot routes under autocannon, each against a baseline measured in the same
// run (bench/baseline-server.js: node:http + pg + ioredis + BullMQ doing the same work as the
// api's code paths: the same API-key cache, the same statements, the same idempotency record
// lookup and durable writes, the same admission signal published afterwards (the operation waits
// in PostgreSQL for a worker's admission), against the same database and queue prefix; what it
// leaves out is listed in its header), and against a bare Nest 11 + Express 5 peer doing the very
// same work through the same functions (bench/nest-peer.js, bench/lib/partner-work.js):
//  - polling: GET /v1/operations/{id} of one `processing` operation;
//  - creation: POST /v1/scenes with a fresh Idempotency-Key per request.
// The sides alternate (baseline, peer, api, baseline, peer, api…) so drift on the shared machine hits
// both; a measurement disturbed by other processes is repeated. Before those loads (while the
// queue is still empty) one worker runs and plain-prompt scenes are created one at a time, each
// polled until `succeeded`: the end-to-end time a partner sees.
// With --compare-dist, a second api build (another revision, say) runs on its own port against
// the same database and queue prefix and is measured as a third side after baseline and api in
// each round and scenario, with the same interference handling and equivalence checks. Its
// ratios are printed for information; the targets judge the main api only.
// Targets: polling ≥ 0.6× the baseline's req/s with p99 ≤ 1.5× its p99; creation ≥ 0.6× the
// baseline's req/s and ≥ 0.85× the Nest peer's, without errors; end-to-end p50 < 1 s. Exit code 1 when a target is missed.
// The api runs as production would (NODE_ENV=production, LOG_LEVEL=info: one line per request).

const { randomUUID } = require('node:crypto');
const { isDeepStrictEqual } = require('node:util');
const { createReadStream, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { availableParallelism, tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const h = require('./lib/harness');
const { measure, merge } = require('./lib/cannon');
const { cpuMeter, waitForQuiet } = require('./lib/machine');

const { fmt, log, percentile, sleep } = h;

const TARGETS = { pollRpsRatio: 0.6, pollP99Ratio: 1.5, createRpsRatio: 0.6, createPeerRatio: 0.85, e2eP50Ms: 1000 };
/** The bare Nest + Express peer's name in the tables. */
const PEER = 'nest-peer';
const PROMPT = 'a quiet harbour at dawn with fishing boats and a lighthouse';
const SCENARIOS = ['poll', 'create'];

const options = h.parseArgs(process.argv.slice(2), {
  connections: 50,
  duration: 10,
  warmup: 3,
  rounds: 3,
  scenes: 30,
  sceneWarmup: 3,
  pollMs: 20,
  // Before each measurement, wait (up to --quiet-timeout s) for the machine to be at most this
  // busy (percent of both cores) over a second: other processes' bursts skew the comparison.
  quietPercent: 15,
  quietTimeout: 120,
  // A measurement during which everything else (other processes, unattributed kernel work) took
  // more than this percent of the machine is repeated, at most --retries times.
  maxOtherPercent: 12,
  retries: 2,
  logLevel: 'info',
  // Leave the api's stdout file in place after the run (by default it is removed with the run).
  keepLog: false,
  skipEndToEnd: false,
  // Write every figure as JSON to this file too.
  out: '',
  // The build whose api and worker are measured (migrations always use ./dist): point it at a
  // build of another revision for before/after figures in the same conditions.
  apiDist: 'dist',
  // A second api build measured in the same run, for information (its own node_modules next to
  // it, as in a checkout of another revision); named --compare-label in the report. It shares the
  // database migrated by ./dist and the queue prefix, so its schema must be the same.
  compareDist: '',
  // Arguments for node itself when it starts each api build, split on spaces (a CPU profile:
  // `--cpu-prof --cpu-prof-dir=DIR`, written when the api stops; NODE_OPTIONS refuses --cpu-prof).
  apiNodeArgs: '',
  compareLabel: 'compare',
});
if (
  options.compareDist &&
  (!/^[A-Za-z0-9_.-]{1,32}$/.test(options.compareLabel) || ['baseline', 'api', PEER].includes(options.compareLabel))
) {
  throw new Error(`--compare-label must be 1 to 32 letters, digits, dots, dashes or underscores, and none of baseline, api, ${PEER}`);
}

h.runBench(async () => {
  h.ensureBuilt();
  const stack = await startStack();

  const e2e = options.skipEndToEnd ? null : await endToEnd(stack);

  const baseline = await startFloor(stack, 'baseline', 'baseline-server.js');
  const peer = await startFloor(stack, PEER, 'nest-peer.js');
  const operationId = await createPolledOperation(stack);
  // In measuring order: baseline, the Nest peer, api, then the compared build.
  const sides = [
    { name: 'baseline', port: baseline.port, pid: baseline.pid, proc: baseline },
    { name: PEER, port: peer.port, pid: peer.pid, proc: peer },
    { name: 'api', port: stack.apiPort, pid: stack.api.pid, proc: stack.api },
    ...(stack.compare ? [{ name: options.compareLabel, port: stack.compare.port, pid: stack.compare.pid, proc: stack.compare }] : []),
  ];
  const names = sides.map((s) => s.name);
  const signals = await admissionSignals(stack);
  await checkEquivalent(stack, sides, operationId, signals);

  const perSide = () => Object.fromEntries(SCENARIOS.map((scenario) => [scenario, Object.fromEntries(names.map((n) => [n, []]))]));
  const runs = perSide();
  const cpu = perSide();
  let repeated = 0;
  let disturbed = 0;
  // Creations each side accepted that published no admission signal, tallied per measurement.
  const unsignalled = Object.fromEntries(names.map((n) => [n, 0]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of SCENARIOS) {
      for (const side of sides) {
        for (let attempt = 0; ; attempt++) {
          const quiet = await waitForQuiet({ maxBusy: options.quietPercent / 100, timeoutMs: options.quietTimeout * 1000 });
          if (!quiet.quiet) log(`the machine is still ${fmt(quiet.busy * 100, 0)}% busy without us; measuring anyway`);
          log(
            `round ${round}/${options.rounds}: ${scenario} against ${side.name} (${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s)`,
          );
          const before = scenario === 'create' ? await admissionTally(stack, signals) : null;
          const r = await measure({
            url: `http://127.0.0.1:${side.port}`,
            connections: options.connections,
            durationS: options.duration,
            warmupS: options.warmup,
            requests: scenario === 'poll' ? pollRequests(stack, operationId) : createRequests(stack),
            expectStatus: scenario === 'poll' ? 200 : 202,
            meter: () => cpuMeter({ pid: side.pid, database: stack.db.name }),
          });
          if (before) {
            const after = await admissionTally(stack, signals);
            unsignalled[side.name] += after.accepted - before.accepted - (after.signals - before.signals);
          }
          log(
            `  ${fmt(r.responses / r.durationS, 0)} req/s, p50 ${fmt(percentile(r.latencies, 50), 2)} ms, p99 ${fmt(percentile(r.latencies, 99), 2)} ms, ` +
              `statuses ${JSON.stringify(r.statuses)}, CPU s ${cpuText(r.cpu)}`,
          );
          const otherShare = r.cpu.other / r.cpu.machineTotal;
          if (otherShare > options.maxOtherPercent / 100) {
            if (attempt < options.retries) {
              repeated++;
              log(`  others used ${fmt(otherShare * 100)}% of the machine meanwhile (over ${options.maxOtherPercent}%): measuring again`);
              continue;
            }
            disturbed++;
            log(`  others used ${fmt(otherShare * 100)}% of the machine meanwhile; no retries left, kept`);
          }
          cpu[scenario][side.name].push(r.cpu);
          runs[scenario][side.name].push(r);
          break;
        }
      }
    }
  }
  const tally = { ...(await admissionTally(stack, signals)), unsignalled };
  await signals.close();
  for (const side of sides) await side.proc.stop();

  const results = Object.fromEntries(
    SCENARIOS.map((scenario) => [scenario, Object.fromEntries(names.map((n) => [n, merge(runs[scenario][n])]))]),
  );
  const logStats = await countLines(stack.logFile);
  const compareLogStats = stack.compare ? await countLines(stack.compare.logFile) : null;
  const passed = report(results, cpu, e2e, { api: logStats, compare: compareLogStats }, { repeated, disturbed }, tally);
  if (options.out) {
    const compare = stack.compare
      ? { label: options.compareLabel, dist: resolve(h.ROOT, options.compareDist), logStats: compareLogStats }
      : null;
    writeFileSync(
      options.out,
      JSON.stringify({ options, sides: names, results, cpu, e2e, logStats, compare, tally, repeated, disturbed, passed }, null, 2),
    );
  }
  return passed ? 0 : 1;
});

// ---------------------------------------------------------------------------------------------
// Processes

async function startStack() {
  // The worker starts later, for the end-to-end scenes only.
  const stack = await h.prepareStack({ apps: ['api', 'worker'], logLevel: options.logLevel });
  // No worker runs during the loads, so every creation stays waiting: the organization may have as
  // many waiting as the loads create (the cap's own refusal is not what is measured).
  h.cliJson(['org', 'limits', '--org', stack.organizationId, '--max-waiting-generations', '1000000'], stack.env);
  const logFile = requestLogFile(`scene-studio-bench-${stack.queuePrefix}.log`);
  const nodeArgs = options.apiNodeArgs.split(' ').filter(Boolean);
  const api = await h.startApp(stack, 'api', { dist: options.apiDist, stdoutFile: logFile, nodeArgs });
  const apiPort = stack.ports.api;
  log(`api on :${apiPort} (pid ${api.pid}), LOG_LEVEL=${options.logLevel}, queue prefix ${stack.queuePrefix}, request log → ${logFile}`);
  let compare = null;
  if (options.compareDist) {
    // Same environment (database, queue prefix, PUBLIC_API_URL, log level) on a port of its own.
    const port = await h.freePort();
    const compareLog = requestLogFile(`scene-studio-bench-${stack.queuePrefix}-${options.compareLabel}.log`);
    const proc = await h.startApp(stack, 'api', {
      dist: options.compareDist,
      stdoutFile: compareLog,
      port,
      label: `${options.compareLabel} api`,
      nodeArgs,
    });
    compare = { ...proc, port, logFile: compareLog };
    log(`${options.compareLabel} api (${resolve(h.ROOT, options.compareDist)}) on :${port} (pid ${proc.pid}), request log → ${compareLog}`);
  }
  return { ...stack, config: apiConfig(stack), api, apiPort, logFile, compare };
}

function requestLogFile(name) {
  const file = join(tmpdir(), name);
  if (!options.keepLog) h.onCleanup(`remove ${file}`, () => rmSync(file, { force: true }));
  return file;
}

/**
 * The configuration the measured api resolves from the environment the harness gives it (its own
 * loadConfig, from its build): the baseline gets the same cache TTL, queue, job and pool settings
 * instead of a second copy of the defaults that could drift.
 */
function apiConfig(stack) {
  const file = resolve(h.ROOT, options.apiDist, 'libs/core/src/config/app-config.js');
  let loadConfig;
  try {
    ({ loadConfig } = require(file));
  } catch (e) {
    throw new Error(`cannot load the api's configuration from ${file} (${e.message}); the baseline needs its settings`);
  }
  return loadConfig({}, { ...process.env, ...stack.env });
}

/** A floor (bench/baseline-server.js or bench/nest-peer.js) with the api's settings, on a port of its own. */
async function startFloor(stack, name, script) {
  const { config } = stack;
  const env = {
    DATABASE_URL: config.database.url,
    DATABASE_POOL_SIZE: String(config.database.poolSize),
    REDIS_URL: config.redis.url,
    QUEUE_PREFIX: config.queuePrefix,
    API_KEY_CACHE_TTL_SECONDS: String(config.apiKeyCacheTtlMs / 1000),
    WORKER_CONCURRENCY: String(config.worker.concurrency),
    NODE_ENV: 'production',
  };
  const port = await h.freePort();
  const proc = h.startNode(name, join(__dirname, script), [String(port)], env);
  await h.waitFor200(proc, port, '/readyz');
  log(
    `${name} on :${port} (pid ${proc.pid}): pool ${env.DATABASE_POOL_SIZE}, key cache ${env.API_KEY_CACHE_TTL_SECONDS} s, queue prefix ${env.QUEUE_PREFIX}, ` +
      `WORKER_CONCURRENCY ${env.WORKER_CONCURRENCY}`,
  );
  return { ...proc, port };
}

// ---------------------------------------------------------------------------------------------
// Requests

function pollRequests(stack, operationId) {
  return [{ method: 'GET', path: `/v1/operations/${operationId}`, headers: { authorization: stack.authorization } }];
}

function createRequests(stack) {
  const body = JSON.stringify({ prompt: PROMPT });
  return [
    {
      method: 'POST',
      path: '/v1/scenes',
      headers: { authorization: stack.authorization, 'content-type': 'application/json' },
      body,
      // A fresh key per request: a repeated key would be a (cheaper) replay, not a creation.
      setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
    },
  ];
}

function createScene(stack, { port = stack.apiPort, agent, key, prompt = PROMPT } = {}) {
  return h.createScene({ port, authorization: stack.authorization, agent, key, prompt });
}

async function createPolledOperation(stack) {
  const r = await createScene(stack);
  if (r.status !== 202) throw new Error(`POST /v1/scenes answered ${r.status}: ${r.text}`);
  log(`polling operation ${r.json.operationId} (no worker runs, so it stays processing)`);
  return r.json.operationId;
}

/**
 * Every side must answer alike before their speeds are compared: the polled operation
 * byte for byte (Retry-After included), creations of the same shape and readable everywhere, the
 * baseline's creation left waiting for admission and signalled like the api's, the idempotency
 * record honoured alike
 * (replay with Idempotent-Replayed, 422 for another body under the same key).
 */
async function checkEquivalent(stack, sides, operationId, signals) {
  const signalsBefore = signals.count;
  const baseline = sides[0];
  const headers = { authorization: stack.authorization };
  const disagree = (what, answers) =>
    new Error(
      `${what}: the servers disagree (status, Retry-After, body)\n` +
        answers.map((a, i) => `  ${sides[i].name.padEnd(9)} ${a.status} ${a.headers['retry-after'] ?? '-'} ${a.text}`).join('\n'),
    );

  const path = `/v1/operations/${operationId}`;
  const polled = await Promise.all(sides.map((s) => h.request(s.port, 'GET', path, { headers })));
  const same = (a, b) =>
    a.status === b.status &&
    a.text === b.text &&
    a.headers['retry-after'] === b.headers['retry-after'] &&
    a.headers['cache-control'] === b.headers['cache-control'];
  if (polled[0].status !== 200 || !polled.every((a) => same(a, polled[0]))) throw disagree(`GET ${path}`, polled);
  if (polled[0].json.status !== 'processing' || !polled[0].headers['retry-after'])
    throw new Error(`expected a processing operation with Retry-After: ${polled[0].text}`);

  // One creation through the api (the reference) and one through the baseline.
  const key = randomUUID();
  const viaApi = await createScene(stack, { key });
  const viaBaseline = await createScene(stack, { port: baseline.port });
  const viaPeer = await createScene(stack, { port: sides[1].port });
  for (const [who, c] of [
    ['api', viaApi],
    ['baseline', viaBaseline],
    [PEER, viaPeer],
  ]) {
    if (c.status !== 202 || !/^op_/.test(c.json?.operationId ?? '') || c.headers.location !== `/v1/operations/${c.json.operationId}`) {
      throw new Error(`${who} POST /v1/scenes answered ${c.status} (Location ${c.headers.location}): ${c.text}`);
    }
  }
  if (
    Object.keys(viaApi.json).join() !== Object.keys(viaBaseline.json).join() ||
    Object.keys(viaApi.json).join() !== Object.keys(viaPeer.json).join()
  ) {
    throw new Error(
      `creation bodies differ in shape:\n  api       ${viaApi.text}\n  baseline  ${viaBaseline.text}\n  ${PEER} ${viaPeer.text}`,
    );
  }
  const readBack = await Promise.all(sides.map((s) => h.request(s.port, 'GET', viaBaseline.headers.location, { headers })));
  if (readBack[0].status !== 200 || !readBack.every((a) => same(a, readBack[0])))
    throw disagree(`GET of the baseline's ${viaBaseline.headers.location}`, readBack);

  // Neither side enqueues: each leaves its operation waiting for admission in PostgreSQL, alike,
  // and publishes one admission signal (no worker runs here, so nothing admits them).
  const [apiWaiting, baselineWaiting, peerWaiting] = await Promise.all([
    waitingOperation(stack, viaApi.json.operationId),
    waitingOperation(stack, viaBaseline.json.operationId),
    waitingOperation(stack, viaPeer.json.operationId),
  ]);
  if (
    !isDeepStrictEqual(apiWaiting, baselineWaiting) ||
    !isDeepStrictEqual(apiWaiting, peerWaiting) ||
    apiWaiting.stage !== 'queued' ||
    apiWaiting.admitted ||
    apiWaiting.enqueued
  ) {
    throw new Error(
      `a floor leaves another operation than the api:\n  api       ${JSON.stringify(apiWaiting)}\n  baseline  ${JSON.stringify(baselineWaiting)}\n  ${PEER} ${JSON.stringify(peerWaiting)}`,
    );
  }
  await signals.until(signalsBefore + 3, 'an admission signal from each side');

  // The api's idempotency record, replayed by every side; another body under that key refused by
  // every side. One request at a time: two at once with one key is the api's 409 (advisory lock).
  const oneByOne = async (fn) => {
    const answers = [];
    for (const side of sides) answers.push(await fn(side));
    return answers;
  };
  const replays = await oneByOne((s) => createScene(stack, { port: s.port, key }));
  const isReplay = (r) => r.status === 202 && r.headers['idempotent-replayed'] === 'true' && r.headers.location === viaApi.headers.location;
  if (!replays.every((r) => isReplay(r) && r.text === replays[0].text)) {
    throw disagree(`a replay of Idempotency-Key ${key}`, replays);
  }
  const reused = await oneByOne((s) => createScene(stack, { port: s.port, key, prompt: `${PROMPT}, at night` }));
  if (!reused.every((r) => r.status === 422)) throw disagree(`Idempotency-Key ${key} with another body (expected 422)`, reused);
  log(
    `equivalence checked: ${sides.map((s) => s.name).join(', ')} answer alike; each leaves its operations waiting for admission and signals it`,
  );
}

/**
 * Counts the admission signals published on the run's queue prefix (one per accepted creation,
 * from every side), so the run can check that each side did that part of the work too.
 */
async function admissionSignals(stack) {
  const Redis = require('ioredis');
  const subscriber = new Redis(stack.config.redis.url, { maxRetriesPerRequest: null });
  const watch = { count: 0 };
  subscriber.on('message', () => watch.count++);
  await subscriber.subscribe(`${stack.queuePrefix}:admission`);
  watch.until = async (n, what) => {
    const deadline = Date.now() + 5000;
    while (watch.count < n) {
      if (Date.now() > deadline) throw new Error(`${what} did not arrive within 5 s (${watch.count} of ${n} signals)`);
      await sleep(20);
    }
  };
  watch.close = () => subscriber.quit();
  return watch;
}

/** What admission sees of an operation, minus its ids and times. */
async function waitingOperation(stack, operationId) {
  const { Client } = require('pg');
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT status, stage, kind, progress, admitted_at IS NOT NULL AS admitted, enqueued_at IS NOT NULL AS enqueued
         FROM operations WHERE id = $1`,
      [operationId],
    );
    if (rows.length !== 1) throw new Error(`operation ${operationId} is not in the database`);
    return rows[0];
  } finally {
    await db.end();
  }
}

/**
 * Every creation a side accepted leaves a waiting operation and publishes one admission signal.
 * Counted once the signals in flight have landed (at most 10 s), before the servers stop: the
 * end-to-end phase's operations (admitted and done by its worker) are not counted.
 */
async function admissionTally(stack, signals) {
  const { Client } = require('pg');
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS accepted, count(*) FILTER (WHERE admitted_at IS NULL AND enqueued_at IS NULL)::int AS waiting
           FROM operations WHERE status = 'processing'`,
      );
      // The polled operation was created before the signals were counted.
      const tally = { ...rows[0], signals: signals.count + 1 };
      if ((tally.accepted === tally.waiting && tally.waiting === tally.signals) || Date.now() > deadline) return tally;
      await sleep(200);
    }
  } finally {
    await db.end();
  }
}

// ---------------------------------------------------------------------------------------------
// End to end: POST, then poll every `pollMs` until succeeded, one scene at a time, one worker.

async function endToEnd(stack) {
  const worker = await h.startApp(stack, 'worker', { dist: options.apiDist });
  log(
    `worker on :${stack.ports.worker} (pid ${worker.pid}); ${options.sceneWarmup} warm-up + ${options.scenes} scenes, one at a time, polled every ${options.pollMs} ms`,
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  try {
    for (let i = 0; i < options.sceneWarmup + options.scenes; i++) {
      const t0 = performance.now();
      const created = await createScene(stack, { agent });
      if (created.status !== 202) throw new Error(`POST /v1/scenes answered ${created.status}: ${created.text}`);
      const acceptedMs = performance.now() - t0;
      let op;
      let polls = 0;
      for (;;) {
        const r = await h.request(stack.apiPort, 'GET', created.headers.location, {
          agent,
          headers: { authorization: stack.authorization },
        });
        polls++;
        if (r.status !== 200) throw new Error(`GET ${created.headers.location} answered ${r.status}: ${r.text}`);
        op = r.json;
        if (op.status !== 'processing') break;
        if (performance.now() - t0 > 30_000) throw new Error(`${op.operationId} still processing after 30 s:\n${worker.output()}`);
        await sleep(options.pollMs);
      }
      const totalMs = performance.now() - t0;
      if (op.status !== 'succeeded') throw new Error(`${op.operationId} ended ${op.status}: ${JSON.stringify(op)}`);
      // The server's own clock: accepted → completed, free of the polling interval.
      const serverMs = Date.parse(op.completedAt) - Date.parse(op.createdAt);
      if (i >= options.sceneWarmup) samples.push({ totalMs, acceptedMs, serverMs, polls });
    }
  } finally {
    agent.destroy();
    await worker.stop();
  }
  const pick = (k, p) =>
    percentile(
      samples.map((s) => s[k]),
      p,
    );
  const e2e = {
    n: samples.length,
    p50: pick('totalMs', 50),
    p90: pick('totalMs', 90),
    max: pick('totalMs', 100),
    serverP50: pick('serverMs', 50),
    serverP90: pick('serverMs', 90),
    acceptedP50: pick('acceptedMs', 50),
    pollsP50: pick('polls', 50),
  };
  log(`end to end: p50 ${fmt(e2e.p50, 0)} ms, p90 ${fmt(e2e.p90, 0)} ms (server accepted→completed p50 ${fmt(e2e.serverP50, 0)} ms)`);
  return e2e;
}

// ---------------------------------------------------------------------------------------------
// Output

async function countLines(file) {
  let lines = 0;
  let bytes = 0;
  await new Promise((resolve, reject) => {
    createReadStream(file)
      .on('data', (chunk) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      })
      .on('end', resolve)
      .on('error', reject);
  });
  return { lines, bytes };
}

function sumCpu(list) {
  const keys = ['server', 'postgres', 'redis', 'bench', 'other', 'machineBusy', 'machineTotal'];
  return Object.fromEntries(keys.map((k) => [k, list.reduce((a, x) => a + x[k], 0)]));
}

function cpuText(c) {
  return `${fmt(c.server)}/${fmt(c.postgres)}/${fmt(c.redis)}/${fmt(c.bench)}/${fmt(c.other)}`;
}

function report(results, cpu, e2e, logStats, interference, tally) {
  const names = Object.keys(results.poll);
  const compare = names.length > 3 ? names[3] : null;
  const rows = [['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'responses', 'CPU s server/pg/redis/bench/other']];
  const label = { poll: 'GET /v1/operations/{id}', create: 'POST /v1/scenes' };
  for (const scenario of SCENARIOS) {
    for (const side of names) {
      const r = results[scenario][side];
      rows.push([
        label[scenario],
        side,
        fmt(r.rps, 0),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        r.errors,
        r.responses,
        cpuText(sumCpu(cpu[scenario][side])),
      ]);
    }
  }
  const poll = results.poll;
  const create = results.create;
  const ratio = (a, b) => a / b;
  // The targets, for one api side (the main api is judged; the compared build is only shown).
  const targetsOf = (side) => {
    const pollRps = ratio(poll[side].rps, poll.baseline.rps);
    const pollP99 = ratio(poll[side].p99, poll.baseline.p99);
    const createRps = ratio(create[side].rps, create.baseline.rps);
    const createPeer = ratio(create[side].rps, create[PEER].rps);
    return [
      [`polling req/s, ${side} ÷ baseline`, fmt(pollRps, 2), `≥ ${TARGETS.pollRpsRatio}`, pollRps >= TARGETS.pollRpsRatio],
      [`polling p99, ${side} ÷ baseline`, fmt(pollP99, 2), `≤ ${TARGETS.pollP99Ratio}`, pollP99 <= TARGETS.pollP99Ratio],
      [`creation req/s, ${side} ÷ baseline`, fmt(createRps, 2), `≥ ${TARGETS.createRpsRatio}`, createRps >= TARGETS.createRpsRatio],
      [`creation req/s, ${side} ÷ ${PEER}`, fmt(createPeer, 2), `≥ ${TARGETS.createPeerRatio}`, createPeer >= TARGETS.createPeerRatio],
      [`creation errors (${side}, non-202)`, String(create[side].errors), '0', create[side].errors === 0],
    ];
  };
  const checks = targetsOf('api');
  const perRequestUs = (scenario, side) => `${fmt((sumCpu(cpu[scenario][side]).server / results[scenario][side].responses) * 1e6, 0)} µs`;
  // api first, then baseline, as before; the compared build last.
  const cpuSides = ['api', 'baseline', PEER, ...(compare ? [compare] : [])];
  const info = [
    [`polling req/s, api ÷ ${PEER}`, fmt(ratio(poll.api.rps, poll[PEER].rps), 2)],
    [
      `req/s, ${PEER} ÷ baseline: polling / creation`,
      `${fmt(ratio(poll[PEER].rps, poll.baseline.rps), 2)} / ${fmt(ratio(create[PEER].rps, create.baseline.rps), 2)}`,
    ],
    ['polling p50, api ÷ baseline', fmt(ratio(poll.api.p50, poll.baseline.p50), 2)],
    [`server CPU per request, polling: ${cpuSides.join(' / ')}`, cpuSides.map((side) => perRequestUs('poll', side)).join(' / ')],
    [`server CPU per request, creation: ${cpuSides.join(' / ')}`, cpuSides.map((side) => perRequestUs('create', side)).join(' / ')],
    [
      'creation p50 / p99, api ÷ baseline',
      `${fmt(ratio(create.api.p50, create.baseline.p50), 2)} / ${fmt(ratio(create.api.p99, create.baseline.p99), 2)}`,
    ],
  ];
  if (e2e) {
    checks.push(['end to end p50, POST → succeeded', `${fmt(e2e.p50, 0)} ms`, `< ${TARGETS.e2eP50Ms} ms`, e2e.p50 < TARGETS.e2eP50Ms]);
    info.push(['end to end p90 / max', `${fmt(e2e.p90, 0)} / ${fmt(e2e.max, 0)} ms (n = ${e2e.n}, polled every ${options.pollMs} ms)`]);
    info.push(['server accepted → completed p50 / p90', `${fmt(e2e.serverP50, 0)} / ${fmt(e2e.serverP90, 0)} ms`]);
  }
  info.push([
    'measurements disturbed by other processes',
    `${interference.repeated} repeated, ${interference.disturbed} kept after ${options.retries} retries (limit: others ≤ ${options.maxOtherPercent}% of the machine)`,
  ]);
  info.push([
    'operations accepted / waiting for admission / admission signals',
    `${tally.accepted} / ${tally.waiting} / ${tally.signals}${tally.accepted === tally.waiting && tally.waiting === tally.signals ? '' : ` (MISMATCH: some creation was not left waiting or not signalled; unsignalled by side: ${JSON.stringify(tally.unsignalled)})`}`,
  ]);
  const logText = (stats) => `${stats.lines} lines, ${fmt(stats.bytes / h.MiB)} MiB (LOG_LEVEL=${options.logLevel})`;
  info.push(['api request log', logText(logStats.api)]);
  if (compare) info.push([`${compare} request log`, logText(logStats.compare)]);

  const perRound = [['scenario', 'server', ...Array.from({ length: options.rounds }, (_, i) => `round ${i + 1} req/s · p50 · p99`)]];
  for (const scenario of SCENARIOS) {
    for (const side of names) {
      perRound.push([
        label[scenario],
        side,
        ...results[scenario][side].perRound.map((x) => `${fmt(x.rps, 0)} · ${fmt(x.p50, 2)} · ${fmt(x.p99, 2)}`),
      ]);
    }
  }

  const out = [
    '',
    `Partner API vs node:http + pg + BullMQ baseline and a bare Nest + Express peer doing the same work${compare ? ` (and ${compare}: ${resolve(h.ROOT, options.compareDist)})` : ''} — ` +
      `${options.connections} connections, ${options.rounds} × ${options.duration} s per server and scenario (after ${options.warmup} s warm-up each)`,
    '',
    h.table(rows),
    `CPU s: CPU seconds used during the measured ${options.rounds} × ${options.duration} s (of ${options.rounds * options.duration * availableParallelism()} available) by the server under test, PostgreSQL (this database's backends and its shared processes), Redis, the load generator, and everything else.`,
    '',
    h.table(perRound),
    '',
    h.table([['target', 'measured', 'target', 'result'], ...checks.map(([a, b, c, ok]) => [a, b, c, ok ? 'PASS' : 'FAIL'])]),
    '',
  ];
  if (compare) {
    // The same targets applied to the compared build, and the two api builds side by side: for
    // reading, never for the exit code.
    const against = [
      [`polling req/s, api ÷ ${compare}`, fmt(ratio(poll.api.rps, poll[compare].rps), 2), '', ''],
      [`polling p99, api ÷ ${compare}`, fmt(ratio(poll.api.p99, poll[compare].p99), 2), '', ''],
      [`creation req/s, api ÷ ${compare}`, fmt(ratio(create.api.rps, create[compare].rps), 2), '', ''],
      [`creation p99, api ÷ ${compare}`, fmt(ratio(create.api.p99, create[compare].p99), 2), '', ''],
    ];
    const rowsOfCompare = targetsOf(compare).map(([a, b, c, ok]) => [a, b, c, ok ? 'yes' : 'no']);
    out.push(h.table([[`${compare} (not judged)`, 'measured', 'target', 'meets'], ...rowsOfCompare, ...against]), '');
  }
  out.push(h.table([['also', 'measured'], ...info]), '');
  process.stdout.write(out.join('\n') + '\n');
  return checks.every((c) => c[3]);
}
