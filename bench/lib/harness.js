'use strict';
// Shared plumbing for `npm run bench:*`: a throw-away database, the compiled processes, RSS
// sampling, statistics and the printed table. Everything a bench starts is registered with
// `onCleanup` and undone on success, failure and Ctrl-C alike.

const { spawn, spawnSync } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { join, resolve } = require('node:path');
const { Client } = require('pg');

const ROOT = join(__dirname, '..', '..');
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Cleanup: a stack of undo steps, run once, newest first.

const cleanups = [];
let cleaningUp = null;

function onCleanup(label, fn) {
  const entry = { label, fn };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

function runCleanup() {
  if (!cleaningUp) {
    cleaningUp = (async () => {
      while (cleanups.length) {
        const { label, fn } = cleanups.pop();
        try {
          await fn();
        } catch (e) {
          process.stderr.write(`cleanup "${label}" failed: ${e && e.message}\n`);
        }
      }
    })();
  }
  return cleaningUp;
}

/** Runs `main`, then the cleanup stack; a signal or a crash also runs the cleanup before exiting. */
function runBench(main) {
  const bail = (code, why) => {
    process.stderr.write(`\n${why}: cleaning up…\n`);
    runCleanup().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => bail(130, 'interrupted'));
  process.once('SIGTERM', () => bail(143, 'terminated'));
  process.once('uncaughtException', (e) => bail(1, `uncaught ${e && e.stack}`));
  process.once('unhandledRejection', (e) => bail(1, `unhandled rejection ${e && e.stack}`));
  main().then(
    async (code) => {
      await runCleanup();
      process.exit(code ?? 0);
    },
    async (e) => {
      process.stderr.write(`\nbench failed: ${(e && e.stack) || e}\n`);
      await runCleanup();
      process.exit(1);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Build, database, Redis

/** Builds the compiled processes when `dist/` lacks them (a fresh clone). */
function ensureBuilt() {
  if (existsSync(join(ROOT, 'dist/apps/api/src/main.js')) && existsSync(join(ROOT, 'dist/apps/cli/src/main.js'))) return;
  log('dist/ is missing: npm run build');
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status})`);
}

function serverUrl() {
  const url = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  return url;
}

/** Creates `scene_studio_bench_<random>` and registers its removal. Returns its URL. */
async function createDatabase() {
  const name = `scene_studio_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl().toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  onCleanup(`drop database ${name}`, () => dropDatabase(name));
  const url = serverUrl();
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropDatabase(name) {
  const admin = new Client({ connectionString: serverUrl().toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function databaseSizeBytes(url) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query('SELECT pg_database_size(current_database())::bigint AS n');
    return Number(rows[0].n);
  } finally {
    await c.end();
  }
}

/** Deletes the Redis keys a bench run's processes left under their QUEUE_PREFIX. */
async function deleteRedisPrefix(prefix) {
  const Redis = require('ioredis');
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Partner requests

/** One HTTP request to a local port: resolves with the status, headers, text and parsed JSON. */
function request(port, method, path, { headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers },
      (res) => {
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
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(body);
  });
}

/** POST /v1/scenes as a partner would: a fresh Idempotency-Key unless one is given. */
function createScene({ port, authorization, prompt, agent, key = randomUUID() }) {
  return request(port, 'POST', '/v1/scenes', {
    agent,
    headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ prompt }),
  });
}

/** createScene that insists on 202 and returns the operation's id. */
async function createOperation(options) {
  const r = await createScene(options);
  if (r.status !== 202) throw new Error(`POST /v1/scenes answered ${r.status}: ${r.text}`);
  return r.json.operationId;
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Runs the compiled CLI and returns its stdout parsed as JSON (`--json` is appended). */
function cliJson(args, env) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/apps/cli/src/main.js'), ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a node script as a child process and registers its termination. Output is kept (last
 * 64 KiB) for the error message if it dies. With `stdoutFile`, stdout goes to that file instead
 * of through the bench: a process logging a line per request would otherwise spend the load
 * generator's CPU on reading its logs.
 */
function startNode(label, script, args, env, { stdoutFile, nodeArgs = [] } = {}) {
  const stdoutFd = stdoutFile ? require('node:fs').openSync(stdoutFile, 'a') : 'pipe';
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdoutFd, 'pipe'],
  });
  if (stdoutFile) require('node:fs').closeSync(stdoutFd);
  let output = '';
  const keep = (d) => {
    output = (output + d).slice(-64 * 1024);
  };
  if (child.stdout) child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const unregister = onCleanup(`stop ${label}`, stop);
  return {
    pid: child.pid,
    child,
    exited,
    output: () => (stdoutFile ? tailOf(stdoutFile, 64 * 1024) : '') + output,
    stop: async () => {
      unregister();
      await stop();
    },
  };
}

function tailOf(file, bytes) {
  try {
    const text = readFileSync(file);
    return text.subarray(Math.max(0, text.length - bytes)).toString('utf8');
  } catch {
    return '';
  }
}

function get(port, path) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

/** Polls `path` until it answers 200; fails if the process exits or `timeoutMs` passes. */
async function waitFor200(proc, port, path, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  proc.exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    if (dead) throw new Error(`process exited before ${path} answered 200:\n${proc.output()}`);
    if ((await get(port, path)) === 200) return;
    await sleep(200);
  }
  throw new Error(`${path} did not answer 200 within ${timeoutMs} ms:\n${proc.output()}`);
}

// ---------------------------------------------------------------------------------------------
// The stack: a migrated database with a test organization, and the compiled apps on it

const PORT_VARIABLES = { api: 'API_PORT', studio: 'STUDIO_PORT', worker: 'WORKER_PORT' };
/** The api's and the studio's ops ports (health and /metrics); the worker's is WORKER_PORT. */
const OPS_PORT_VARIABLES = { api: 'API_OPS_PORT', studio: 'STUDIO_OPS_PORT' };

/**
 * A throw-away database, migrated, with a test organization; a queue prefix whose Redis keys are
 * deleted at the end; a free port for each of `apps` (the api always among them) and the
 * environment all of them run with. Start each app with `startApp`. `note` ends the log line.
 */
async function prepareStack({ apps = ['api'], logLevel = 'warn', orgName = 'Bench', note = '' } = {}) {
  const db = await createDatabase();
  const queuePrefix = `bench-${randomBytes(4).toString('hex')}`;
  onCleanup(`delete Redis keys ${queuePrefix}:*`, () => deleteRedisPrefix(queuePrefix));
  const ports = {};
  for (const app of apps) ports[app] = await freePort();
  const opsPorts = {};
  for (const app of apps) if (OPS_PORT_VARIABLES[app]) opsPorts[app] = await freePort();
  const env = {
    NODE_ENV: 'production',
    // Production requires it; a fresh one per run.
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    DATABASE_URL: db.url,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: logLevel,
    RATE_LIMIT_REQUESTS: '1000000',
    HOST: '127.0.0.1',
    ...Object.fromEntries(apps.map((app) => [PORT_VARIABLES[app], String(ports[app])])),
    ...Object.fromEntries(Object.entries(opsPorts).map(([app, port]) => [OPS_PORT_VARIABLES[app], String(port)])),
    PUBLIC_API_URL: `http://127.0.0.1:${ports.api}`,
    ...(ports.studio ? { PUBLIC_EMBED_ORIGIN: `http://localhost:${ports.studio}` } : {}),
  };
  log(`database ${db.name}: migrating, creating a test organization${note}`);
  cliJson(['migrate'], env);
  const org = cliJson(['org', 'create', '--name', orgName, '--test'], env);
  return { db, queuePrefix, env, ports, opsPorts, organizationId: org.organizationId, authorization: `Bearer ${org.apiKey}` };
}

/**
 * Starts the compiled `app` (api, studio or worker) of the build in `dist` with the stack's
 * environment; resolves once its /readyz answers 200. `stdoutFile`: see startNode. `port`: a
 * second process of the same app (another build, say) listens there instead of on the stack's
 * port; everything else in its environment stays the stack's (same database, same queue prefix,
 * same PUBLIC_API_URL, so both answer alike). `label` names it in errors and cleanup; `env` adds
 * to (or overrides) the stack's environment for this process only. `script` with `args` runs in
 * place of dist's process; `nodeArgs` go to node itself (`--cpu-prof`, which NODE_OPTIONS refuses).
 */
async function startApp(
  stack,
  app,
  { dist = 'dist', stdoutFile, port = stack.ports[app], label = app, env: extra = {}, script, args = [], nodeArgs = [] } = {},
) {
  // A second process gets any free ops port (0), not the first one's.
  const env = {
    ...(port === stack.ports[app]
      ? stack.env
      : { ...stack.env, [PORT_VARIABLES[app]]: String(port), ...(OPS_PORT_VARIABLES[app] ? { [OPS_PORT_VARIABLES[app]]: '0' } : {}) }),
    ...extra,
  };
  const proc = startNode(label, script ?? resolve(ROOT, dist, `apps/${app}/src/main.js`), args, env, { stdoutFile, nodeArgs });
  await waitFor200(proc, port, '/readyz');
  return proc;
}

// ---------------------------------------------------------------------------------------------
// Resident memory

function readStatusKiB(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return { rss: field('VmRSS') * 1024, hwm: field('VmHWM') * 1024 };
}

/**
 * Samples a process's VmRSS every `intervalMs`. `resetPeak()` clears the kernel's VmHWM
 * (`echo 5 > /proc/<pid>/clear_refs`), so that VmHWM at the end also catches a spike between two
 * samples; when the kernel refuses, only the samples count.
 */
class RssSampler {
  constructor(pid, intervalMs = 100) {
    this.pid = pid;
    this.intervalMs = intervalMs;
    this.samples = [];
    this.timer = null;
    this.hwmReset = false;
  }

  now() {
    return readStatusKiB(this.pid).rss;
  }

  resetPeak() {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.hwmReset = true;
    } catch {
      this.hwmReset = false;
    }
  }

  start() {
    this.samples = [];
    const t0 = performance.now();
    const sample = () => {
      try {
        this.samples.push({ t: performance.now() - t0, rss: this.now() });
      } catch {
        /* process gone */
      }
    };
    sample();
    this.timer = setInterval(sample, this.intervalMs);
  }

  stop() {
    clearInterval(this.timer);
    let hwm = NaN;
    try {
      if (this.hwmReset) hwm = readStatusKiB(this.pid).hwm;
    } catch {
      /* process gone */
    }
    const sampledPeak = Math.max(...this.samples.map((s) => s.rss));
    return { samples: this.samples.length, sampledPeak, hwm, peak: Number.isFinite(hwm) ? Math.max(hwm, sampledPeak) : sampledPeak };
  }
}

/** The median of `n` RSS readings `intervalMs` apart: a resting figure, not one GC's moment. */
async function restingRss(pid, n = 10, intervalMs = 100) {
  const values = [];
  for (let i = 0; i < n; i++) {
    values.push(readStatusKiB(pid).rss);
    await sleep(intervalMs);
  }
  return percentile(values, 50);
}

// ---------------------------------------------------------------------------------------------
// Numbers and output

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of an unsorted array (`p` in 0..100). */
function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const mib = (bytes, digits = 1) => fmt(bytes / MiB, digits);

function log(line) {
  process.stderr.write(`[bench] ${line}\n`);
}

/** A plain-text table; the first row is the header. */
function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) => r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** `--name value` and `--flag` arguments, with defaults. */
function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)$/.exec(argv[i]);
    if (!m) throw new Error(`unexpected argument ${argv[i]}`);
    const key = m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(key in defaults)) throw new Error(`unknown option --${m[1]}`);
    if (typeof defaults[key] === 'boolean') out[key] = true;
    else {
      const v = argv[++i];
      if (v === undefined) throw new Error(`--${m[1]} needs a value`);
      out[key] = typeof defaults[key] === 'number' ? Number(v) : v;
      if (typeof defaults[key] === 'number' && !Number.isFinite(out[key])) throw new Error(`--${m[1]} must be a number`);
    }
  }
  return out;
}

module.exports = {
  ROOT,
  MiB,
  onCleanup,
  runBench,
  ensureBuilt,
  createDatabase,
  databaseSizeBytes,
  deleteRedisPrefix,
  cliJson,
  request,
  createScene,
  createOperation,
  freePort,
  startNode,
  waitFor200,
  prepareStack,
  startApp,
  RssSampler,
  restingRss,
  sleep,
  percentile,
  fmt,
  mib,
  log,
  table,
  parseArgs,
};
