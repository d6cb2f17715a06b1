#!/usr/bin/env node
// `npm run --silent cli -- …`: runs the compiled CLI, building it first on a fresh clone.
// Build output goes to stderr so that `--json` keeps stdout to one JSON object.
//
// With neither DATABASE_URL nor REDIS_URL set, it uses what a running `npm start` started (its
// record, `.local/npm-start.json`: docs/operations.md, "Local run"), so the commands `npm start`
// prints work as they are. `node dist/apps/cli/src/main.js`, what production runs, never looks.
'use strict';
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { readRunRecord, RUN_RECORD } = require('./local-services');

const root = join(__dirname, '..');
const entry = join(root, 'dist/apps/cli/src/main.js');

/** Refuses the way the CLI itself does: one JSON object with --json, a line on stderr otherwise. */
function refuse(message) {
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code: 'unavailable', message } })}\n`);
  else process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

if (!process.env.DATABASE_URL && !process.env.REDIS_URL) {
  const found = readRunRecord();
  if (found?.record) {
    const { env, withheld, pid } = found.record;
    if (withheld.length > 0) {
      refuse(
        `npm start (pid ${pid}) runs on a ${withheld.join(' and ')} of yours that holds a password, which it does not write down: ` +
          `set ${withheld.join(' and ')} as you gave ${withheld.length > 1 ? 'them' : 'it'} to npm start, and REDIS_URL too.`,
      );
    }
    // The shared settings of that run, unless set here: its broadcasts (a key revocation) reach it.
    for (const [name, value] of Object.entries(env)) process.env[name] ??= value;
  } else if (found?.stale && process.env.LOG_LEVEL === 'debug') {
    process.stderr.write(`ignoring ${RUN_RECORD}: the npm start it names (pid ${found.stale.pid}) is not running\n`);
  }
}

if (!existsSync(entry)) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
require(entry);
