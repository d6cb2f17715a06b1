#!/usr/bin/env node
// node scripts/parallel.js <npm script>...
//
// Runs npm scripts at once (lint and the type-checks are each one busy core: on two cores, side
// by side they take the time of the slower one), holds each one's output until it ends so the
// logs do not interleave, and fails if any of them failed.
'use strict';
const { spawn } = require('node:child_process');

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: node scripts/parallel.js <npm script>...\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', (e) => resolve({ script, code: 1, output: [Buffer.from(`${e.message}\n`)], ms: Date.now() - started }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output, ms: Date.now() - started }));
  }).then((r) => {
    process.stdout.write(Buffer.concat(r.output));
    const verdict = r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`;
    process.stdout.write(`[parallel] ${r.script} ${verdict} in ${(r.ms / 1000).toFixed(1)} s\n`);
    return r;
  });
}

void Promise.all(scripts.map(run)).then((results) => {
  process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
});
