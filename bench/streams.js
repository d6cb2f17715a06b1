'use strict';
// npm run bench:streams [-- --streams 15000 --clients 4 --idle 30 --expiring 200 --expiry-in 15
//                          --concurrency 48 --settle 10 --no-split --out file.json
//                          --studio-node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"]
//
// The studio's event streams at scale (docs/architecture.md, "Server push"): `--streams` open
// streams, one perform session each, on one studio process of the build, with production
// settings (NODE_ENV=production, LOG_LEVEL=info) and the rate limits raised out of the way. The
// client side runs in `--clients` processes (a process may hold only `ulimit -n` sockets), each
// stream a socket of its own, reading events as a page does.
//
// The floor, in the same run, on the same client processes: a plain node:http server holding the
// same streams and doing the same work on them (bench/lib/sse-floor-server.js: the same headers
// and first event, a comment line every 15 s from one timer, expiry from one timer, the same
// `session.ended` and close when told a scene is gone), without Nest, Express, PostgreSQL or Redis.
//
// Measured, for both:
//  - idle CPU: the server process's CPU over `--idle` s with every stream open and nothing
//    happening (30 s: two heartbeat rounds and, for the studio, one safety sweep at its default
//    STUDIO_EVENTS_SWEEP_SECONDS), `--settle` s after the last stream opened;
//  - resident memory per stream: (RSS with the streams open − RSS before they opened) / streams,
//    each the median of ten readings, the second after the idle window;
// then, for the studio:
//  - expiry: `--expiring` more sessions whose expiry is moved in the database to `--expiry-in` s
//    ahead (the partner API allows no lifetime under 300 s) before their streams open; how late
//    each stream hears `session.ended` (expired) after its `expiresAt`;
//  - deletion: `DELETE /v1/scenes/{id}` through the api ends every one of the `--streams`
//    streams: the time from the request to each stream's `session.ended`, first / p50 / p99 / max
//    (the floor's figure, from its control request, is printed for reference). The deletion's
//    follow-up (the session rows marked revoked: `scenes.finish-deletion`) is a worker's job, and
//    no worker runs here: in production neither the workers nor PostgreSQL share the studio's
//    machine, so that work does not compete with its fan-out;
//  - the same deletion with the streams split over two studio replicas (`--no-split` skips it).
// Targets (exit code 1 when one is missed): studio idle CPU ≤ max(3 × floor, floor + 2 points);
// memory per stream ≤ 2 × the floor's; session.ended p99 ≤ 500 ms after the DELETE, on one
// replica and on two; every expiry heard within 1 s of expiresAt.
// Every figure is printed with the CPU the rest of the machine used meanwhile ("others"): on a
// shared machine it says whether the run was disturbed. Results: docs/performance.md.

const { fork, spawnSync } = require('node:child_process');
const { readFileSync, writeFileSync, mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const h = require('./lib/harness');
const { cpuMeter } = require('./lib/machine');

const { fmt, log, percentile, sleep } = h;

const options = h.parseArgs(process.argv.slice(2), {
  streams: 15_000,
  clients: 4,
  idle: 30,
  settle: 10,
  expiring: 200,
  expiryIn: 15,
  concurrency: 48,
  noSplit: false,
  out: '',
  // Arguments for node itself when it starts the studio, split on spaces (a CPU profile:
  // "--cpu-prof --cpu-prof-dir=/tmp/prof"; a heap snapshot on a signal: "--heapsnapshot-signal=SIGUSR2").
  studioNodeArgs: '',
});

const TARGET = { cpuFactor: 3, cpuPoints: 2, memoryFactor: 2, endedP99Ms: 500, expiryLateMs: 1000 };
const ORIGIN = 'http://localhost:5173';
const now = () => performance.timeOrigin + performance.now();

const studioNodeArgs = () => options.studioNodeArgs.split(' ').filter(Boolean);

// ---------------------------------------------------------------------------------------------
// Client processes

function fileLimit() {
  const r = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) ? n : 1024;
}

class Clients {
  constructor(count) {
    this.children = Array.from({ length: count }, () => fork(join(__dirname, 'lib/sse-clients.js'), [], { stdio: 'inherit' }));
    h.onCleanup('stop the client processes', () => this.stop());
  }

  call(child, msg) {
    return new Promise((resolve, reject) => {
      const onMessage = (reply) => {
        if (reply.reply !== msg.cmd) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(reply);
      };
      const onExit = (code) => reject(new Error(`a client process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(msg);
    });
  }

  /** Opens a stream per secret on `port`, spread over the processes; fails unless every one opened. */
  async open(port, secrets) {
    const share = Math.ceil(secrets.length / this.children.length);
    const replies = await Promise.all(
      this.children.map((c, i) =>
        this.call(c, {
          cmd: 'open',
          port,
          secrets: secrets.slice(i * share, (i + 1) * share),
          concurrency: Math.ceil(options.concurrency / this.children.length),
        }),
      ),
    );
    const opened = replies.reduce((n, r) => n + r.opened, 0);
    if (opened !== secrets.length) {
      throw new Error(
        `only ${opened} of ${secrets.length} streams opened on :${port}; refused: ${JSON.stringify(replies.map((r) => r.refused))}`,
      );
    }
  }

  async report() {
    const replies = await Promise.all(this.children.map((c) => this.call(c, { cmd: 'report' })));
    return {
      open: replies.reduce((n, r) => n + r.open, 0),
      closedWithoutEnd: replies.reduce((n, r) => n + r.closedWithoutEnd, 0),
      ended: replies.flatMap((r) => r.ended),
    };
  }

  /** Waits until `count` streams heard `session.ended` (or `timeoutMs` passed); returns them. */
  async ended(count, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.report();
      if (r.ended.length >= count || Date.now() > deadline) return r;
      await sleep(100);
    }
  }

  async reset() {
    await Promise.all(this.children.map((c) => this.call(c, { cmd: 'reset' })));
  }

  async forgetEnded() {
    await Promise.all(this.children.map((c) => this.call(c, { cmd: 'forget-ended' })));
  }

  /** CPU seconds the client processes used so far. */
  cpuSeconds() {
    let sum = 0;
    for (const c of this.children) {
      try {
        const fields = readFileSync(`/proc/${c.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        sum += (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        /* gone */
      }
    }
    return sum;
  }

  stop() {
    for (const c of this.children) if (c.connected) c.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// The stack

async function partnerJson(port, method, path, authorization, body) {
  const r = await h.request(port, method, path, {
    headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return r;
}

/** A new scene (left generating: no worker runs), by its id, read from its operation's row. */
async function createSceneId(stack, prompt) {
  const operationId = await h.createOperation({ port: stack.ports.api, authorization: stack.authorization, prompt });
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT scene_id FROM operations WHERE id = $1`, [operationId]);
    return rows[0].scene_id;
  } finally {
    await db.end();
  }
}

/** `count` perform sessions of the scene: their ids and secrets. */
async function createSessions(stack, sceneId, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const out = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) {
          next++;
          const r = await h.request(stack.ports.api, 'POST', '/v1/embed-sessions', {
            agent,
            headers: { authorization: stack.authorization, 'content-type': 'application/json' },
            body: JSON.stringify({ sceneId, origin: ORIGIN, mode: 'perform' }),
          });
          if (r.status !== 201) throw new Error(`POST /v1/embed-sessions answered ${r.status}: ${r.text}`);
          out.push({ sessionId: r.json.embedSessionId, secret: new URL(r.json.url).hash.slice(1), sceneId });
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measurements

/** Idle CPU of `pid` (percent of one core) over `--idle` s, with what the rest of the machine used. */
async function idleCpu(pid, clients, database) {
  const meter = cpuMeter({ pid, database });
  const clientsBefore = clients.cpuSeconds();
  await sleep(options.idle * 1000);
  const m = meter();
  const clientSeconds = clients.cpuSeconds() - clientsBefore;
  const pct = (s) => (100 * s) / m.wallSeconds;
  return {
    serverPercent: pct(m.server),
    postgresPercent: pct(m.postgres),
    redisPercent: pct(m.redis),
    clientsPercent: pct(clientSeconds),
    othersPercent: pct(Math.max(0, m.other - clientSeconds)),
    machineBusyPercent: (100 * m.machineBusy) / m.machineTotal,
  };
}

function latencies(ended, from) {
  const ms = ended.map((e) => e.at - from);
  return { count: ms.length, first: Math.min(...ms), p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms) };
}

/** A scene's deletion through the api, heard by `count` streams: the time from the request to each `session.ended`. */
async function deleteScene(stack, clients, sceneId, count) {
  const t0 = now();
  const r = await partnerJson(stack.ports.api, 'DELETE', `/v1/scenes/${sceneId}`, stack.authorization);
  const answeredMs = now() - t0;
  if (r.status !== 204) throw new Error(`DELETE /v1/scenes/${sceneId} answered ${r.status}: ${r.text}`);
  const report = await clients.ended(count);
  const wrong = report.ended.filter((e) => e.reason !== 'revoked').length;
  return {
    ...latencies(report.ended, t0),
    answeredMs,
    missing: count - report.ended.length,
    wrong,
    closedWithoutEnd: report.closedWithoutEnd,
  };
}

// ---------------------------------------------------------------------------------------------

async function floorPhase(stack, clients, sessions, dir) {
  const file = join(dir, 'floor-sessions.json');
  writeFileSync(file, JSON.stringify(sessions.map((s) => ({ ...s, expiresAt: null }))));
  const port = await h.freePort();
  const floor = h.startNode('floor', join(__dirname, 'lib/sse-floor-server.js'), [String(port), file], {});
  for (let i = 0; !/floor listening/.test(floor.output()); i++) {
    if (i > 100) throw new Error(`the floor server did not start:\n${floor.output()}`);
    await sleep(100);
  }
  await sleep(1000);
  const rssBefore = await h.restingRss(floor.pid);
  const sampler = new h.RssSampler(floor.pid, 250);
  sampler.resetPeak();
  sampler.start();
  log(`floor: opening ${sessions.length} streams`);
  const openedAt = now();
  await clients.open(
    port,
    sessions.map((s) => s.secret),
  );
  const openSeconds = (now() - openedAt) / 1000;
  await sleep(options.settle * 1000);
  log(`floor: idle for ${options.idle} s`);
  const cpu = await idleCpu(floor.pid, clients);
  const rssAfter = await h.restingRss(floor.pid);
  const rssPeak = sampler.stop().peak;
  const t0 = now();
  await h.request(port, 'POST', `/control/end-scene?scene=${sessions[0].sceneId}`);
  const report = await clients.ended(sessions.length);
  const ended = { ...latencies(report.ended, t0), missing: sessions.length - report.ended.length };
  await clients.reset();
  await floor.stop();
  return { openSeconds, cpu, rssBefore, rssAfter, rssPeak, perStream: (rssAfter - rssBefore) / sessions.length, ended };
}

async function studioPhase(stack, clients, sessions, expiring) {
  // A port picked now, not with the stack's: the floor's 15 000 client sockets took ephemeral
  // ports meanwhile, and one of them once held the stack's studio port (EADDRINUSE).
  const port = await h.freePort();
  const studio = await h.startApp(stack, 'studio', { port, stdoutFile: join(stack.dir, 'studio.log'), nodeArgs: studioNodeArgs() });
  await sleep(1000);
  const rssBefore = await h.restingRss(studio.pid);
  const sampler = new h.RssSampler(studio.pid, 250);
  sampler.resetPeak();
  sampler.start();
  log(`studio: opening ${sessions.length} streams`);
  const openedAt = now();
  await clients.open(
    port,
    sessions.map((s) => s.secret),
  );
  const openSeconds = (now() - openedAt) / 1000;
  await sleep(options.settle * 1000);
  log(`studio: idle for ${options.idle} s`);
  const cpu = await idleCpu(studio.pid, clients, stack.db.name);
  const rssAfter = await h.restingRss(studio.pid);
  const rssPeak = sampler.stop().peak;

  // Expiry: sessions whose expiry is moved close, then opened.
  let expiry = null;
  if (expiring.length > 0) {
    const expiresAt = Math.ceil(Date.now() / 1000) * 1000 + options.expiryIn * 1000;
    const db = new Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE embed_sessions SET expires_at = $2 WHERE id = ANY($1)`, [
        expiring.map((s) => s.sessionId),
        new Date(expiresAt),
      ]);
    } finally {
      await db.end();
    }
    log(`studio: ${expiring.length} more streams, expiring at ${new Date(expiresAt).toISOString()}`);
    await clients.open(
      port,
      expiring.map((s) => s.secret),
    );
    const report = await clients.ended(expiring.length, options.expiryIn * 1000 + 30_000);
    expiry = {
      ...latencies(report.ended, expiresAt),
      early: report.ended.filter((e) => e.at < expiresAt).length,
      wrong: report.ended.filter((e) => e.reason !== 'expired').length,
      missing: expiring.length - report.ended.length,
    };
    await clients.forgetEnded();
  }

  log(`studio: DELETE /v1/scenes/${sessions[0].sceneId}`);
  const ended = await deleteScene(stack, clients, sessions[0].sceneId, sessions.length);
  await clients.reset();
  return {
    studio,
    port,
    openSeconds,
    cpu,
    rssBefore,
    rssAfter,
    rssPeak,
    perStream: (rssAfter - rssBefore) / sessions.length,
    expiry,
    ended,
  };
}

async function splitPhase(stack, clients, sessions, firstPort) {
  const port = await h.freePort();
  const second = await h.startApp(stack, 'studio', {
    port,
    label: 'studio-2',
    stdoutFile: join(stack.dir, 'studio-2.log'),
    nodeArgs: studioNodeArgs(),
  });
  const half = Math.ceil(sessions.length / 2);
  log(`two studios: opening ${half} + ${sessions.length - half} streams`);
  await Promise.all([
    clients.open(
      firstPort,
      sessions.slice(0, half).map((s) => s.secret),
    ),
    clients.open(
      port,
      sessions.slice(half).map((s) => s.secret),
    ),
  ]);
  await sleep(options.settle * 1000);
  log(`two studios: DELETE /v1/scenes/${sessions[0].sceneId}`);
  const ended = await deleteScene(stack, clients, sessions[0].sceneId, sessions.length);
  await clients.reset();
  await second.stop();
  return { ended };
}

function report(floor, studio, split) {
  const kib = (b) => `${fmt(b / 1024, 1)} KiB`;
  const ms = (l) => (l ? `${fmt(l.first, 0)} / ${fmt(l.p50, 0)} / ${fmt(l.p99, 0)} / ${fmt(l.max, 0)} ms` : 'n/a');
  const cpuLimit = Math.max(TARGET.cpuFactor * floor.cpu.serverPercent, floor.cpu.serverPercent + TARGET.cpuPoints);
  const memLimit = TARGET.memoryFactor * floor.perStream;
  const checks = [
    ['idle CPU', studio.cpu.serverPercent <= cpuLimit, `${fmt(studio.cpu.serverPercent, 1)} % ≤ ${fmt(cpuLimit, 1)} %`],
    ['memory per stream', studio.perStream <= memLimit, `${kib(studio.perStream)} ≤ ${kib(memLimit)}`],
    [
      'session.ended p99, one studio',
      studio.ended.p99 <= TARGET.endedP99Ms && studio.ended.missing === 0 && studio.ended.wrong === 0,
      `${fmt(studio.ended.p99, 0)} ms ≤ ${TARGET.endedP99Ms} ms, ${studio.ended.missing} missing`,
    ],
  ];
  if (split) {
    checks.push([
      'session.ended p99, two studios',
      split.ended.p99 <= TARGET.endedP99Ms && split.ended.missing === 0 && split.ended.wrong === 0,
      `${fmt(split.ended.p99, 0)} ms ≤ ${TARGET.endedP99Ms} ms, ${split.ended.missing} missing`,
    ]);
  }
  if (studio.expiry) {
    checks.push([
      'expiry within 1 s',
      studio.expiry.max <= TARGET.expiryLateMs && studio.expiry.early === 0 && studio.expiry.missing === 0 && studio.expiry.wrong === 0,
      `latest ${fmt(studio.expiry.max, 0)} ms after expiresAt, ${studio.expiry.early} early, ${studio.expiry.missing} missing`,
    ]);
  }
  const rows = [
    ['', 'floor (node:http)', 'studio'],
    ['open streams', options.streams, options.streams],
    ['time to open them', `${fmt(floor.openSeconds, 1)} s`, `${fmt(studio.openSeconds, 1)} s`],
    [`idle CPU (${options.idle} s)`, `${fmt(floor.cpu.serverPercent, 1)} %`, `${fmt(studio.cpu.serverPercent, 1)} %`],
    ['  PostgreSQL / Redis meanwhile', '—', `${fmt(studio.cpu.postgresPercent, 1)} % / ${fmt(studio.cpu.redisPercent, 1)} %`],
    [
      '  clients / others meanwhile',
      `${fmt(floor.cpu.clientsPercent, 1)} % / ${fmt(floor.cpu.othersPercent, 1)} %`,
      `${fmt(studio.cpu.clientsPercent, 1)} % / ${fmt(studio.cpu.othersPercent, 1)} %`,
    ],
    [
      'RSS before / with the streams (peak)',
      `${h.mib(floor.rssBefore)} / ${h.mib(floor.rssAfter)} (${h.mib(floor.rssPeak)}) MiB`,
      `${h.mib(studio.rssBefore)} / ${h.mib(studio.rssAfter)} (${h.mib(studio.rssPeak)}) MiB`,
    ],
    ['memory per stream', kib(floor.perStream), kib(studio.perStream)],
    [
      'session.ended first / p50 / p99 / max',
      `${ms(floor.ended)} (control request)`,
      `${ms(studio.ended)} (DELETE answered in ${fmt(studio.ended.answeredMs, 0)} ms)`,
    ],
  ];
  if (split) rows.push(['  on two studios', '—', `${ms(split.ended)} (DELETE answered in ${fmt(split.ended.answeredMs, 0)} ms)`]);
  if (studio.expiry) rows.push([`expiry: late by first / p50 / p99 / max (${options.expiring})`, '—', ms(studio.expiry)]);
  process.stdout.write(`\n${h.table(rows)}\n\n`);
  for (const [name, ok, detail] of checks) process.stdout.write(`${ok ? 'met   ' : 'MISSED'}  ${name}: ${detail}\n`);
  return checks.every(([, ok]) => ok);
}

async function main() {
  const limit = fileLimit();
  const perClient = Math.ceil((options.streams + options.expiring) / options.clients);
  if (perClient + 200 > limit || options.streams + options.expiring + 500 > limit) {
    throw new Error(`ulimit -n is ${limit}: raise --clients (each holds ${perClient}) or lower --streams`);
  }
  h.ensureBuilt();
  const stack = await h.prepareStack({
    apps: ['api', 'studio'],
    logLevel: 'info',
    orgName: 'Streams',
    note: `, ${options.streams} streams`,
  });
  stack.dir = mkdtempSync(join(tmpdir(), 'bench-streams-'));
  h.onCleanup('remove the logs', () => rmSync(stack.dir, { recursive: true, force: true }));
  Object.assign(stack.env, {
    // Every secret is new to the studio, and they all come from one address.
    UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: '1000000',
    RATE_LIMIT_REQUESTS: '1000000',
  });
  const api = await h.startApp(stack, 'api', { stdoutFile: join(stack.dir, 'api.log') });
  log(`creating ${options.streams * (options.noSplit ? 1 : 2) + options.expiring} sessions`);
  const one = await createSessions(stack, await createSceneId(stack, 'streams: one studio'), options.streams);
  const expiring = await createSessions(stack, await createSceneId(stack, 'streams: expiry'), options.expiring);
  const two = options.noSplit ? [] : await createSessions(stack, await createSceneId(stack, 'streams: two studios'), options.streams);
  const clients = new Clients(options.clients);

  const floor = await floorPhase(stack, clients, one, stack.dir);
  const studio = await studioPhase(stack, clients, one, expiring);
  const split = options.noSplit ? null : await splitPhase(stack, clients, two, studio.port);
  await studio.studio.stop();
  await api.stop();
  clients.stop();

  const ok = report(floor, studio, split);
  if (options.out) {
    const { studio: _process, ...studioFigures } = studio;
    writeFileSync(options.out, JSON.stringify({ options, floor, studio: studioFigures, split, ok }, null, 2));
  }
  return ok ? 0 : 1;
}

h.runBench(main);
