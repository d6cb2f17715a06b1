#!/usr/bin/env node
// `npm start`: the one-step local run. Finds (or starts) Redis and PostgreSQL
// (scripts/local-services.js), builds what changed (scripts/build.js), applies migrations, creates
// the local test organization on an empty database, then runs api, worker, studio and the
// reference partner page together (scripts/supervise.js) and, once all answer, prints the one-time
// API key and the environment other tools need where they can't be missed. It records what it
// runs in `.local/npm-start.json`, so the CLI and replicas (scripts/start-replica.js) find it.
// Ctrl-C, or SIGTERM to this process, stops them all, and the PostgreSQL and Redis it started.
//
// Two processes. This one, in the terminal's process group, only relays: it starts the run (this
// file with --run) in a process group of its own and hands it the signals it gets. A Ctrl-C
// reaches every process of the terminal's group at once; were the services, Redis and the
// embedded PostgreSQL in it, PostgreSQL and Redis would die at the same instant as the services
// begin to drain, and the worker would wait out its whole shutdown timeout on them. Away from the
// terminal's group, the run stops them in order: services first, then what they stood on.
'use strict';
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const node = process.execPath;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

if (process.argv.includes('--run')) {
  run();
} else {
  relay();
}

/** The terminal's side: starts the run in its own process group, passes signals and output on. */
function relay() {
  const child = spawn(node, [__filename, '--run'], {
    cwd: root,
    detached: true,
    // Output through this process, which stays in the terminal's foreground group (a background
    // group writing to the terminal is stopped where `stty tostop` is set); the IPC channel tells
    // the run if this process is gone.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, SCENE_STUDIO_START_TTY: process.stdout.isTTY ? '1' : '' },
  });
  child.stdout.pipe(process.stdout);
  child.stderr.pipe(process.stderr);
  // npm passes a signal on to its script, and the terminal sends Ctrl-C's to both: the run starts
  // one stop whatever it receives, and says so.
  for (const s of STOP_SIGNALS) process.on(s, () => child.kill(s));
  child.once('exit', (code, signal) => {
    const done = () => process.exit(code ?? (signal ? 1 : 0));
    // What the run wrote last is still in the pipes.
    let open = 2;
    const closed = () => --open === 0 && done();
    child.stdout.once('close', closed);
    child.stderr.once('close', closed);
  });
}

/** The run itself. */
function run() {
  const { build } = require('./build');
  const local = require('./local-services');
  const { supervise } = require('./supervise');

  const tty = process.env.SCENE_STUDIO_START_TTY === '1';
  const bold = (t) => (tty ? `\x1b[1m${t}\x1b[0m` : t);
  const step = (title) => process.stdout.write(`\n${bold(`==> ${title}`)}\n`);
  const log = (m) => process.stdout.write(`  ${m}\n`);
  // The run's environment, without the relay's private flag.
  const { SCENE_STUDIO_START_TTY: _tty, ...baseEnv } = process.env;

  /** What this run started (embedded PostgreSQL, redis-server): stopped last, on every way out. */
  const started = [];
  const stopping = new AbortController();
  let recorded = false;

  /** Stops what this run started and removes its record; returns the names of what it stopped. */
  async function stopStarted() {
    if (recorded) local.removeRunRecord();
    const names = [];
    for (const s of started.splice(0).reverse()) {
      await s.stop().catch(() => undefined);
      if (s.what) names.push(s.what);
    }
    return names;
  }
  let failing = false;
  async function fail(message, code = 1) {
    // Once: npm and the terminal may both deliver one Ctrl-C.
    if (failing) return;
    failing = true;
    process.stderr.write(`\n${message}\n`);
    stopping.abort();
    const stopped = await stopStarted();
    if (stopped.length) process.stderr.write(`Stopped ${listed(stopped)} it had started.\n`);
    process.exit(code);
  }
  // Before the supervisor takes over, a stop still has to end the build and stop what was started.
  const early = () => void fail('Interrupted.', 0);
  for (const s of STOP_SIGNALS) process.on(s, early);
  // The relay is gone (killed, its terminal closed): nobody is left to press Ctrl-C. Its pipes
  // went with it, so what is left to say is lost (EPIPE), and the stop goes on regardless.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  process.once('disconnect', () => process.emit('SIGHUP', 'SIGHUP'));
  process.channel?.unref();

  /** Runs a command of ours to its end; null when it failed or the run is stopping. */
  function runCommand(cmd, args, opts = {}) {
    return new Promise((resolve) => {
      if (stopping.signal.aborted) return resolve(null);
      const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
      let out = '';
      child.stdout?.on('data', (d) => (out += d));
      const abort = () => child.kill('SIGTERM');
      stopping.signal.addEventListener('abort', abort, { once: true });
      child.once('error', () => resolve(null));
      // 'close', not 'exit': its output has been read to the end by then.
      child.once('close', (code) => {
        stopping.signal.removeEventListener('abort', abort);
        resolve(code === 0 && !stopping.signal.aborted ? out : null);
      });
    });
  }

  async function cliJson(args, env) {
    const out = await runCommand(node, ['dist/apps/cli/src/main.js', ...args, '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      return out === null ? null : JSON.parse(out);
    } catch {
      return null;
    }
  }

  async function main() {
    const runStartedAt = performance.now();
    step('Redis and PostgreSQL');
    // Redis first: when there is none, say what to install before a minute of building.
    let redis;
    try {
      redis = await local.ensureRedis({ log });
    } catch (e) {
      if (e instanceof local.MissingRedisError) return fail(e.message);
      throw e;
    }
    // Only what this run started is stopped (and named) at the end.
    started.push({ stop: redis.stop, what: redis.pid ? 'the redis-server' : null });
    log(`Redis:      ${redis.source}`);
    const postgres = await local.ensurePostgres({ log });
    started.push({ stop: postgres.stop, what: postgres.embedded ? 'the embedded PostgreSQL' : null });
    log(`PostgreSQL: ${postgres.source}`);

    const partnerPort = baseEnv.PARTNER_APP_PORT || '3100';
    const ports = {
      API_PORT: Number(baseEnv.API_PORT || 3000),
      STUDIO_PORT: Number(baseEnv.STUDIO_PORT || 3001),
      WORKER_PORT: Number(baseEnv.WORKER_PORT || 3002),
      API_OPS_PORT: Number(baseEnv.API_OPS_PORT || 3003),
      STUDIO_OPS_PORT: Number(baseEnv.STUDIO_OPS_PORT || 3004),
      PARTNER_APP_PORT: Number(partnerPort),
    };
    const apiUrl = baseEnv.PUBLIC_API_URL || `http://localhost:${ports.API_PORT}`;
    const embedOrigin = baseEnv.PUBLIC_EMBED_ORIGIN || `http://localhost:${ports.STUDIO_PORT}`;
    const env = {
      ...baseEnv,
      NODE_ENV: baseEnv.NODE_ENV || 'development',
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      // Derived from the ports when unset, so a run on other ports writes working URLs.
      PUBLIC_API_URL: apiUrl,
      PUBLIC_EMBED_ORIGIN: embedOrigin,
    };

    step('Building');
    const buildStartedAt = performance.now();
    try {
      const { built } = await build({ onlyChanged: true, log, signal: stopping.signal, ownProcessGroup: true });
      log(built.length ? `built in ${seconds(performance.now() - buildStartedAt)}` : 'nothing to build');
    } catch (e) {
      if (e.aborted) return;
      return fail(`${e.message}.`);
    }

    step('Applying database migrations');
    if ((await runCommand(node, ['dist/apps/cli/src/main.js', 'migrate', '--create-database'], { env })) === null) {
      return stopping.signal.aborted ? undefined : fail('Migrations failed (above).');
    }

    // From here on the CLI and replicas can use what this run started.
    const record = local.runRecord({ env, ports, embeddedPostgres: Boolean(postgres.embedded) });
    local.writeRunRecord(record);
    recorded = true;

    step('Starting api, worker and studio, then the partner example (Ctrl-C stops all)');
    const pretty = require('pino-pretty').prettyFactory({
      colorize: tty,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,app',
      singleLine: true,
    });
    // JSON log lines are prettified; anything else (a stack on stderr) is shown as it is.
    const format = (line) => (line.startsWith('{') ? pretty(line) : line);
    const app = (name) => ({ name, command: node, args: [`dist/apps/${name}/src/main.js`], env, cwd: root });
    for (const s of STOP_SIGNALS) process.off(s, early);
    let stopAsked = 0;
    const supervisor = supervise([app('api'), app('worker'), app('studio')], {
      format,
      color: tty,
      nameWidth: 'partner'.length,
      onStopping: () => {
        stopAsked = performance.now();
        stopping.abort();
      },
      onStop: async (children) => {
        const servers = await stopStarted();
        const took = stopAsked ? ` (${seconds(performance.now() - stopAsked)})` : '';
        process.stdout.write(`Stopped ${listed(children)}${servers.length ? `, then ${listed(servers)} it had started` : ''}${took}.\n`);
      },
    });

    // While they boot: the local test organization, created on an empty database (its key is
    // shown once), and a key for the partner example (only hashes are stored: a fresh one per run).
    const localOrg = await cliJson(['org', 'bootstrap-local', '--extra-key'], env);
    const org = localOrg?.organizationId ?? null;
    const partnerKey = localOrg?.extraKey?.apiKey ?? null;
    if (!localOrg && !stopping.signal.aborted) {
      log('could not create or find the local test organization (`npm run --silent cli -- org bootstrap-local` says why)');
    }
    if (partnerKey) {
      supervisor.add({
        name: 'partner',
        command: node,
        args: ['examples/partner-app/server.js'],
        cwd: root,
        env: {
          ...env,
          PARTNER_API_KEY: partnerKey,
          PARTNER_API_URL: apiUrl,
          PARTNER_EMBED_ORIGIN: embedOrigin,
          PARTNER_APP_PORT: partnerPort,
        },
      });
    }

    const ops = (port) => `http://127.0.0.1:${port}/readyz`;
    const ready = await Promise.race([
      waitReady([ops(ports.API_OPS_PORT), ops(ports.STUDIO_OPS_PORT), ops(ports.WORKER_PORT)], 120_000),
      supervisor.done.then(() => false),
    ]);
    if (ready) {
      const prefix = process.env.LOCAL_DATA_DIR ? `${local.shellAssignments({ LOCAL_DATA_DIR: process.env.LOCAL_DATA_DIR })} ` : '';
      const cli = (args) => `    ${prefix}npm run --silent cli -- ${args}`;
      const lines = [
        `Scene Studio runs (ready in ${seconds(performance.now() - runStartedAt)}).  API: ${apiUrl}   studio: ${embedOrigin}`,
        ...(partnerKey ? [`Partner example: http://localhost:${partnerPort}  (generate a scene, open the studio)`] : []),
        '',
        ...(localOrg?.created
          ? [`Your API key (organization ${org}), shown this once; copy it now:`, `    ${localOrg.apiKey}`, 'Later, mint another with:']
          : org
            ? ['No new API key: the local test organization exists. Mint one with:']
            : ['No local test organization: create one with:']),
        org ? cli(`key create --org ${org}`) : cli('org create --name Local --test'),
        '',
        'The CLI finds this run by itself. Other tools need its environment:',
        ...environmentLines(record),
        `A second worker, api or studio beside it: ${prefix}npm run start:replica -- worker`,
        '',
        'Ctrl-C stops everything.',
      ];
      process.stdout.write(`\n${box(lines)}\n\n`);
    }
    process.exit(await supervisor.done);
  }

  /** The ready-to-paste environment of this run, and what it leaves out. */
  function environmentLines(record) {
    const lines = [
      `    ${local.shellAssignments(record.env.DATABASE_URL || record.env.REDIS_URL ? pick(record.env, ['DATABASE_URL', 'REDIS_URL', 'QUEUE_PREFIX']) : {})}`,
    ];
    if (record.withheld.length) {
      lines.push(
        `    (${record.withheld.join(' and ')}: as you gave ${record.withheld.length > 1 ? 'them' : 'it'} to npm start; a password is not printed)`,
      );
    }
    return lines;
  }

  function box(lines) {
    const width = Math.max(...lines.map((l) => l.length));
    const edge = `+${'-'.repeat(width + 2)}+`;
    return [edge, ...lines.map((l) => `| ${l.padEnd(width)} |`), edge].map((l) => (tty ? `\x1b[1;33m${l}\x1b[0m` : l)).join('\n');
  }

  main().catch((e) => fail(`npm start failed: ${e.stack || e}`));
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'nothing');
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function pick(object, keys) {
  return Object.fromEntries(keys.filter((k) => object[k] !== undefined).map((k) => [k, object[k]]));
}

async function waitReady(urls, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(urls);
  while (pending.size && Date.now() < deadline) {
    for (const url of [...pending]) {
      const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) pending.delete(url);
    }
    if (pending.size) await new Promise((r) => setTimeout(r, 250));
  }
  return pending.size === 0;
}
