#!/usr/bin/env node
// `npm start`: the one-step local run. Builds, applies migrations, creates the local test
// organization on an empty database (printing its key once), then runs api, worker, studio and
// the reference partner page together with readable, prefixed output. Ctrl-C stops them all.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const concurrently = require('concurrently');

const root = join(__dirname, '..');
const node = process.execPath;
const step = (title) => process.stdout.write(`\n\x1b[1m==> ${title}\x1b[0m\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`\n${[cmd, ...args].join(' ')} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(r.status ?? 1);
  }
  return r;
}

step('Building');
run('npm', ['run', '--silent', 'build']);

step('Applying database migrations');
run(node, ['dist/apps/cli/src/main.js', 'migrate', '--create-database']);

step('Local test organization');
run(node, ['dist/apps/cli/src/main.js', 'org', 'bootstrap-local']);

// The partner example needs its own key; only a hash is stored, so it gets a fresh one per run.
function partnerKey() {
  const cli = (args) => spawnSync(node, ['dist/apps/cli/src/main.js', ...args, '--json'], { cwd: root, encoding: 'utf8' });
  const list = cli(['org', 'list']);
  if (list.status !== 0) return null;
  const local = JSON.parse(list.stdout).organizations.find((o) => o.test && o.name === 'Local test organization');
  if (!local) return null;
  const key = cli(['key', 'create', '--org', local.organizationId]);
  return key.status === 0 ? JSON.parse(key.stdout).apiKey : null;
}
const partnerPort = process.env.PARTNER_APP_PORT || '3100';
const apiUrl = process.env.PUBLIC_API_URL || `http://localhost:${process.env.API_PORT || 3000}`;
const embedOrigin = process.env.PUBLIC_EMBED_ORIGIN || `http://localhost:${process.env.STUDIO_PORT || 3001}`;
const key = partnerKey();

step('Starting api, worker, studio and the partner example (Ctrl-C stops all)');
if (key) {
  process.stdout.write(`\n  Partner example: \x1b[1mhttp://localhost:${partnerPort}\x1b[0m  (generate a scene, then open the studio)\n\n`);
} else {
  process.stdout.write('\n  The partner example is not started: no "Local test organization" in this database.\n\n');
}
const pretty = `${node} ${join(root, 'node_modules/pino-pretty/bin.js')} --colorize --translateTime SYS:HH:MM:ss --ignore pid,hostname,app --singleLine`;
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development' };
const { result } = concurrently(
  [
    { name: 'api', command: `${node} dist/apps/api/src/main.js | ${pretty}`, prefixColor: 'cyan', env },
    { name: 'worker', command: `${node} dist/apps/worker/src/main.js | ${pretty}`, prefixColor: 'magenta', env },
    { name: 'studio', command: `${node} dist/apps/studio/src/main.js | ${pretty}`, prefixColor: 'green', env },
    ...(key
      ? [
          {
            name: 'partner',
            command: `${node} examples/partner-app/server.js`,
            prefixColor: 'yellow',
            env: {
              ...env,
              PARTNER_API_KEY: key,
              PARTNER_API_URL: apiUrl,
              PARTNER_EMBED_ORIGIN: embedOrigin,
              PARTNER_APP_PORT: partnerPort,
            },
          },
        ]
      : []),
  ],
  { cwd: root, killOthersOn: ['failure', 'success'], prefix: '{name}', padPrefix: true, handleInput: false },
);
result.then(
  () => process.exit(0),
  () => process.exit(0),
);
