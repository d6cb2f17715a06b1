#!/usr/bin/env node
// `npm run --silent cli -- …`: runs the compiled CLI, building it first on a fresh clone.
// Build output goes to stderr so that `--json` keeps stdout to one JSON object.
'use strict';
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entry = join(root, 'dist/apps/cli/src/main.js');
if (!existsSync(entry)) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
require(entry);
