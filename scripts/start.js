#!/usr/bin/env node
// `npm start`: the one-step local run. Finds (or starts) Redis and PostgreSQL
// (scripts/local-services.js), builds, applies migrations, creates the local test organization
// on an empty database, then runs api, worker, studio and the reference partner page together
// (scripts/supervise.js) and, once all answer, prints the one-time API key where it can't be
// missed. Ctrl-C, or SIGTERM to this process, stops them all, and the PostgreSQL and Redis it
// started.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { ensurePostgres, ensureRedis, MissingRedisError } = require('./local-services');
const { supervise } = require('./supervise');

const root = join(__dirname, '..');
const node = process.execPath;
const tty = Boolean(process.stdout.isTTY);
const bold = (t) => (tty ? `\x1b[1m${t}\x1b[0m` : t);
const step = (title) => process.stdout.write(`\n${bold(`==> ${title}`)}\n`);

/** What this run started (embedded PostgreSQL, redis-server): stopped last, on every way out. */
const started = [];
async function stopStarted() {
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
}
async function fail(message, code = 1) {
  process.stderr.write(`\n${message}\n`);
  await stopStarted();
  process.exit(code);
}
// Before the supervisor takes over, a Ctrl-C still has to stop what was started.
const early = () => void fail('Interrupted.', 0);
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, early);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  return r.status === 0 ? r : null;
}

function cliJson(args, env) {
  const r = spawnSync(node, ['dist/apps/cli/src/main.js', ...args, '--json'], { cwd: root, encoding: 'utf8', env });
  if (r.status !== 0) return null;
  try {
    return JSON.parse(r.stdout);
  } catch {
    return null;
  }
}

function box(lines) {
  const width = Math.max(...lines.map((l) => l.length));
  const edge = `+${'-'.repeat(width + 2)}+`;
  return [edge, ...lines.map((l) => `| ${l.padEnd(width)} |`), edge].map((l) => (tty ? `\x1b[1;33m${l}\x1b[0m` : l)).join('\n');
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

async function main() {
  const log = (m) => process.stdout.write(`  ${m}\n`);

  step('Redis and PostgreSQL');
  // Redis first: when there is none, say what to install before a minute of building.
  let redis;
  try {
    redis = await ensureRedis({ log });
  } catch (e) {
    if (e instanceof MissingRedisError) return fail(e.message);
    throw e;
  }
  started.push(redis);
  log(`Redis:      ${redis.source}`);
  const postgres = await ensurePostgres({ log });
  started.push(postgres);
  log(`PostgreSQL: ${postgres.source}`);
  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development', DATABASE_URL: postgres.url, REDIS_URL: redis.url };

  step('Building');
  if (!run('npm', ['run', '--silent', 'build'])) return fail('The build failed (above).');

  step('Applying database migrations');
  if (!run(node, ['dist/apps/cli/src/main.js', 'migrate', '--create-database'], { env })) return fail('Migrations failed (above).');

  step('Local test organization');
  const local = cliJson(['org', 'bootstrap-local'], env);
  if (!local) return fail('Could not create the local test organization (run `npm run --silent cli -- org bootstrap-local` to see why).');
  const org =
    local.organizationId ??
    (cliJson(['org', 'list'], env)?.organizations ?? []).find((o) => o.test && o.name === 'Local test organization')?.organizationId;
  log(
    local.created
      ? `created ${org}; its API key is shown once everything runs`
      : org
        ? `using ${org}`
        : 'organizations exist; none is the local test organization',
  );

  // The partner example needs its own key; only hashes are stored, so it gets a fresh one per run.
  const partnerKey = org ? cliJson(['key', 'create', '--org', org], env)?.apiKey : null;
  const partnerPort = process.env.PARTNER_APP_PORT || '3100';
  const apiUrl = process.env.PUBLIC_API_URL || `http://localhost:${process.env.API_PORT || 3000}`;
  const embedOrigin = process.env.PUBLIC_EMBED_ORIGIN || `http://localhost:${process.env.STUDIO_PORT || 3001}`;
  // Derived from the ports when unset, so a run on other ports writes working URLs.
  Object.assign(env, { PUBLIC_API_URL: apiUrl, PUBLIC_EMBED_ORIGIN: embedOrigin });

  step('Starting api, worker, studio and the partner example (Ctrl-C stops all)');
  const pretty = require('pino-pretty').prettyFactory({
    colorize: tty,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,app',
    singleLine: true,
  });
  // JSON log lines are prettified; anything else (a stack on stderr) is shown as it is.
  const format = (line) => (line.startsWith('{') ? pretty(line) : line);
  const app = (name) => ({ name, command: node, args: [`dist/apps/${name}/src/main.js`], env, cwd: root });
  const specs = [app('api'), app('worker'), app('studio')];
  if (partnerKey) {
    specs.push({
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
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.off(s, early);
  const supervisor = supervise(specs, { format, onStop: stopStarted });

  const ops = (v, d) => `http://127.0.0.1:${process.env[v] || d}/readyz`;
  const ready = await Promise.race([
    waitReady([ops('API_OPS_PORT', 3003), ops('STUDIO_OPS_PORT', 3004), ops('WORKER_PORT', 3002)], 120_000),
    supervisor.done.then(() => false),
  ]);
  if (ready) {
    const lines = [
      `Scene Studio runs.  API: ${apiUrl}   studio: ${embedOrigin}`,
      ...(partnerKey ? [`Partner example: http://localhost:${partnerPort}  (generate a scene, open the studio)`] : []),
      '',
      ...(local.created
        ? [
            `Your API key (organization ${org}), shown this once; copy it now:`,
            `    ${local.apiKey}`,
            'Later, mint another with:',
            `    npm run --silent cli -- key create --org ${org}`,
          ]
        : org
          ? ['No new API key: the local test organization exists. Mint one with:', `    npm run --silent cli -- key create --org ${org}`]
          : ['No local test organization: create one with `npm run --silent cli -- org create --name Local --test`']),
      '',
      'Ctrl-C stops everything.',
    ];
    process.stdout.write(`\n${box(lines)}\n\n`);
  }
  process.exit(await supervisor.done);
}

main().catch((e) => fail(`npm start failed: ${e.stack || e}`));
