'use strict';
// npm run bench [-- --connections 50 --duration 10 --warmup 3 --rounds 3 --scenes 30 --poll-ms 20]
//
// The partner API's two hot routes under autocannon, each against a minimal baseline measured in
// the same run (bench/baseline-server.js: node:http + pg doing the equivalent key check and
// queries against the same database):
//  - polling: GET /v1/operations/{id} of one `processing` operation;
//  - creation: POST /v1/scenes with a fresh Idempotency-Key per request.
// Baseline and api alternate (baseline, api, baseline, api…) so drift on the shared machine hits
// both; a measurement disturbed by other processes is repeated. Before those loads (while the
// queue is still empty) one worker runs and plain-prompt scenes are created one at a time, each
// polled until `succeeded`: the end-to-end time a partner sees.
// Targets: polling ≥ 0.6× the baseline's req/s with p99 ≤ 1.5× its p99; creation ≥ 300 req/s
// without errors; end-to-end p50 < 1 s. Exit code 1 when a target is missed.
// The api runs as production would (NODE_ENV=production, LOG_LEVEL=info: one line per request).

const { randomUUID } = require('node:crypto');
const { createReadStream, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { availableParallelism, tmpdir } = require('node:os');
const { join } = require('node:path');
const h = require('./lib/harness');
const { measure, merge } = require('./lib/cannon');
const { cpuMeter, waitForQuiet } = require('./lib/machine');

const { fmt, log, percentile, sleep } = h;

const TARGETS = { pollRpsRatio: 0.6, pollP99Ratio: 1.5, createRps: 300, e2eP50Ms: 1000 };
const PROMPT = 'a quiet harbour at dawn with fishing boats and a lighthouse';

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
  skipEndToEnd: false,
  // Write every figure as JSON to this file too.
  out: '',
  // The build whose api and worker are measured (migrations always use ./dist): point it at a
  // build of another revision for before/after figures in the same conditions.
  apiDist: 'dist',
});

h.runBench(async () => {
  h.ensureBuilt();
  const stack = await startStack();

  const e2e = options.skipEndToEnd ? null : await endToEnd(stack);

  const baseline = await startBaseline(stack);
  const operationId = await createPolledOperation(stack);
  await checkEquivalent(stack, baseline, operationId);

  const runs = { poll: { baseline: [], api: [] }, create: { baseline: [], api: [] } };
  const cpu = { poll: { baseline: [], api: [] }, create: { baseline: [], api: [] } };
  let repeated = 0;
  let disturbed = 0;
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of ['poll', 'create']) {
      for (const side of ['baseline', 'api']) {
        const port = side === 'api' ? stack.apiPort : baseline.port;
        for (let attempt = 0; ; attempt++) {
          const quiet = await waitForQuiet({ maxBusy: options.quietPercent / 100, timeoutMs: options.quietTimeout * 1000 });
          if (!quiet.quiet) log(`the machine is still ${fmt(quiet.busy * 100, 0)}% busy without us; measuring anyway`);
          log(`round ${round}/${options.rounds}: ${scenario} against ${side} (${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s)`);
          const r = await measure({
            url: `http://127.0.0.1:${port}`,
            connections: options.connections,
            durationS: options.duration,
            warmupS: options.warmup,
            requests: scenario === 'poll' ? pollRequests(stack, operationId) : createRequests(stack),
            expectStatus: scenario === 'poll' ? 200 : 202,
            meter: () => cpuMeter({ pid: side === 'api' ? stack.api.pid : baseline.pid, database: stack.db.name }),
          });
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
          cpu[scenario][side].push(r.cpu);
          runs[scenario][side].push(r);
          break;
        }
      }
    }
  }
  await baseline.stop();
  await stack.api.stop();

  const results = {
    poll: { baseline: merge(runs.poll.baseline), api: merge(runs.poll.api) },
    create: { baseline: merge(runs.create.baseline), api: merge(runs.create.api) },
  };
  const logStats = await countLines(stack.logFile);
  const passed = report(results, cpu, e2e, logStats, { repeated, disturbed });
  if (options.out) writeFileSync(options.out, JSON.stringify({ options, results, cpu, e2e, logStats, repeated, disturbed, passed }, null, 2));
  return passed ? 0 : 1;
});

// ---------------------------------------------------------------------------------------------
// Processes

async function startStack() {
  // The worker starts later, for the end-to-end scenes only.
  const stack = await h.prepareStack({ apps: ['api', 'worker'], logLevel: options.logLevel });
  const logFile = join(tmpdir(), `scene-studio-bench-${stack.queuePrefix}.log`);
  h.onCleanup(`remove ${logFile}`, () => rmSync(logFile, { force: true }));
  const api = await h.startApp(stack, 'api', { dist: options.apiDist, stdoutFile: logFile });
  const apiPort = stack.ports.api;
  log(`api on :${apiPort} (pid ${api.pid}), LOG_LEVEL=${options.logLevel}, queue prefix ${stack.queuePrefix}, request log → ${logFile}`);
  return { ...stack, api, apiPort, logFile };
}

async function startBaseline(stack) {
  const port = await h.freePort();
  const proc = h.startNode('baseline server', join(__dirname, 'baseline-server.js'), [String(port)], { DATABASE_URL: stack.db.url });
  await h.waitFor200(proc, port, '/readyz');
  log(`baseline on :${port} (pid ${proc.pid})`);
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

function request(port, method, path, { headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(body);
  });
}

function createScene(stack, { port = stack.apiPort, agent } = {}) {
  return request(port, 'POST', '/v1/scenes', {
    agent,
    headers: { authorization: stack.authorization, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ prompt: PROMPT }),
  });
}

async function createPolledOperation(stack) {
  const r = await createScene(stack);
  if (r.status !== 202) throw new Error(`POST /v1/scenes answered ${r.status}: ${r.text}`);
  log(`polling operation ${r.json.operationId} (no worker runs, so it stays processing)`);
  return r.json.operationId;
}

/** Both servers must answer the polled operation alike before their speeds are compared. */
async function checkEquivalent(stack, baseline, operationId) {
  const path = `/v1/operations/${operationId}`;
  const headers = { authorization: stack.authorization };
  const [a, b] = await Promise.all([request(stack.apiPort, 'GET', path, { headers }), request(baseline.port, 'GET', path, { headers })]);
  if (a.status !== 200 || b.status !== 200 || a.text !== b.text) {
    throw new Error(`api and baseline disagree on ${path}:\n  api      ${a.status} ${a.text}\n  baseline ${b.status} ${b.text}`);
  }
  if (a.json.status !== 'processing' || !a.headers['retry-after']) throw new Error(`expected a processing operation with Retry-After: ${a.text}`);
  const c = await createScene(stack, { port: baseline.port });
  if (c.status !== 202 || !/^op_/.test(c.json?.operationId ?? '')) throw new Error(`baseline POST /v1/scenes answered ${c.status}: ${c.text}`);
  const viaApi = await request(stack.apiPort, 'GET', c.headers.location, { headers });
  if (viaApi.status !== 200) throw new Error(`the api cannot read the baseline's operation: ${viaApi.status} ${viaApi.text}`);
}

// ---------------------------------------------------------------------------------------------
// End to end: POST, then poll every `pollMs` until succeeded, one scene at a time, one worker.

async function endToEnd(stack) {
  const worker = await h.startApp(stack, 'worker', { dist: options.apiDist });
  log(`worker on :${stack.ports.worker} (pid ${worker.pid}); ${options.sceneWarmup} warm-up + ${options.scenes} scenes, one at a time, polled every ${options.pollMs} ms`);
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
        const r = await request(stack.apiPort, 'GET', created.headers.location, { agent, headers: { authorization: stack.authorization } });
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
  const pick = (k, p) => percentile(samples.map((s) => s[k]), p);
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

function report(results, cpu, e2e, logStats, interference) {
  const rows = [['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'responses', 'CPU s server/pg/redis/bench/other']];
  const label = { poll: 'GET /v1/operations/{id}', create: 'POST /v1/scenes' };
  for (const scenario of ['poll', 'create']) {
    for (const side of ['baseline', 'api']) {
      const r = results[scenario][side];
      rows.push([label[scenario], side, fmt(r.rps, 0), fmt(r.p50, 2), fmt(r.p99, 2), r.errors, r.responses, cpuText(sumCpu(cpu[scenario][side]))]);
    }
  }
  const poll = results.poll;
  const create = results.create;
  const ratio = (a, b) => a / b;
  const checks = [
    ['polling req/s, api ÷ baseline', fmt(ratio(poll.api.rps, poll.baseline.rps), 2), `≥ ${TARGETS.pollRpsRatio}`, ratio(poll.api.rps, poll.baseline.rps) >= TARGETS.pollRpsRatio],
    ['polling p99, api ÷ baseline', fmt(ratio(poll.api.p99, poll.baseline.p99), 2), `≤ ${TARGETS.pollP99Ratio}`, ratio(poll.api.p99, poll.baseline.p99) <= TARGETS.pollP99Ratio],
    ['creation req/s (api)', fmt(create.api.rps, 0), `≥ ${TARGETS.createRps}`, create.api.rps >= TARGETS.createRps],
    ['creation errors (api, non-202)', String(create.api.errors), '0', create.api.errors === 0],
  ];
  const perRequestUs = (scenario, side) => `${fmt((sumCpu(cpu[scenario][side]).server / results[scenario][side].responses) * 1e6, 0)} µs`;
  const info = [
    ['polling p50, api ÷ baseline', fmt(ratio(poll.api.p50, poll.baseline.p50), 2)],
    ['server CPU per request, polling: api / baseline', `${perRequestUs('poll', 'api')} / ${perRequestUs('poll', 'baseline')}`],
    ['server CPU per request, creation: api / baseline', `${perRequestUs('create', 'api')} / ${perRequestUs('create', 'baseline')}`],
    ['creation req/s, api ÷ baseline', fmt(ratio(create.api.rps, create.baseline.rps), 2)],
    ['creation p50 / p99, api ÷ baseline', `${fmt(ratio(create.api.p50, create.baseline.p50), 2)} / ${fmt(ratio(create.api.p99, create.baseline.p99), 2)}`],
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
  info.push(['api request log', `${logStats.lines} lines, ${fmt(logStats.bytes / h.MiB)} MiB (LOG_LEVEL=${options.logLevel})`]);

  const perRound = [['scenario', 'server', ...Array.from({ length: options.rounds }, (_, i) => `round ${i + 1} req/s · p50 · p99`)]];
  for (const scenario of ['poll', 'create']) {
    for (const side of ['baseline', 'api']) {
      perRound.push([label[scenario], side, ...results[scenario][side].perRound.map((x) => `${fmt(x.rps, 0)} · ${fmt(x.p50, 2)} · ${fmt(x.p99, 2)}`)]);
    }
  }

  const out = [
    '',
    `Partner API vs node:http + pg baseline — ${options.connections} connections, ${options.rounds} × ${options.duration} s per server and scenario (after ${options.warmup} s warm-up each)`,
    '',
    h.table(rows),
    `CPU s: CPU seconds used during the measured ${options.rounds} × ${options.duration} s (of ${options.rounds * options.duration * availableParallelism()} available) by the server under test, PostgreSQL (this database's backends and its shared processes), Redis, the load generator, and everything else.`,
    '',
    h.table(perRound),
    '',
    h.table([['target', 'measured', 'target', 'result'], ...checks.map(([a, b, c, ok]) => [a, b, c, ok ? 'PASS' : 'FAIL'])]),
    '',
    h.table([['also', 'measured'], ...info]),
    '',
  ];
  process.stdout.write(out.join('\n') + '\n');
  return checks.every((c) => c[3]);
}
