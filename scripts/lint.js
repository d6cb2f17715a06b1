#!/usr/bin/env node
// node scripts/lint.js [--quick]
//
// Every static check, one after the other, stopping at the first that fails: formatting,
// ESLint (type-aware), the dependency rules, and the repository's own checks.
//
// `--quick` (npm run test:quick) lets ESLint skip files whose content did not change since its
// last run (node_modules/.cache/eslint). That cache is not exact for type-aware rules — a file
// that did not change is not linted again when a type it uses did (a function becoming async
// makes an unchanged caller's missing `await` a floating promise) — so `npm run lint`, which
// `npm test` and CI run, never uses it. Prettier's cache is exact (formatting is per file) and
// both use it.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const quick = process.argv.includes('--quick');
const bin = (name) => join(__dirname, '..', 'node_modules', '.bin', name);

const steps = [
  [bin('prettier'), '--check', '.', '--log-level', 'warn', '--cache', '--cache-strategy', 'content'],
  [bin('eslint'), '.', ...(quick ? ['--cache', '--cache-strategy', 'content', '--cache-location', 'node_modules/.cache/eslint/'] : [])],
  [bin('depcruise'), 'apps', 'libs', 'packages', 'test', '--config', '.dependency-cruiser.cjs'],
  ['node', 'scripts/check-table-ownership.js'],
  ['node', 'scripts/check-file-names.js'],
  ['node', 'scripts/check-commit-subjects.js'],
  ['node', 'scripts/check-core-is-generic.js'],
  ['node', 'scripts/check-no-external-contract.js'],
  ['node', 'scripts/check-repository-queries.js'],
];

for (const [command, ...args] of steps) {
  const { status, signal, error } = spawnSync(command, args, { stdio: 'inherit', cwd: join(__dirname, '..') });
  if (error || status !== 0) {
    const what = error ? error.message : signal ? `signal ${signal}` : `exit ${status}`;
    process.stderr.write(`lint: ${command.split('/').pop()} ${args.join(' ')} failed (${what})\n`);
    process.exit(status || 1);
  }
}
