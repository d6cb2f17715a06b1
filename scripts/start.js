#!/usr/bin/env node
// `npm start`: the one-step local run. Builds what is missing or stale, applies migrations,
// creates the local test organization on an empty database (printing its key once), then runs
// api, worker and studio together with readable, prefixed output. Ctrl-C stops them all.
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
run(node, ['dist/apps/cli/src/main.js', 'migrate']);

step('Local test organization');
run(node, ['dist/apps/cli/src/main.js', 'org', 'bootstrap-local']);

step('Starting api, worker and studio (Ctrl-C stops all)');
const pretty = `${node} ${join(root, 'node_modules/pino-pretty/bin.js')} --colorize --translateTime SYS:HH:MM:ss --ignore pid,hostname,app --singleLine`;
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development' };
const { result } = concurrently(
  [
    { name: 'api', command: `${node} dist/apps/api/src/main.js | ${pretty}`, prefixColor: 'cyan', env },
    { name: 'worker', command: `${node} dist/apps/worker/src/main.js | ${pretty}`, prefixColor: 'magenta', env },
    { name: 'studio', command: `${node} dist/apps/studio/src/main.js | ${pretty}`, prefixColor: 'green', env },
  ],
  { cwd: root, killOthersOn: ['failure', 'success'], prefix: '{name}', padPrefix: true, handleInput: false },
);
result.then(
  () => process.exit(0),
  () => process.exit(0),
);
