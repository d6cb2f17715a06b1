#!/usr/bin/env node
// npm run fuzz:long [-- --seeds 10 --requests 2000 --concurrency 64 --seed-base 123]
//
// The long hostile-upload campaign (test/fuzz/hostile-uploads.e2e-spec.ts, issue 23): `--seeds`
// seeds drawn at random (or counted up from --seed-base, to replay a run), each `--requests`
// property-based multipart requests sent `--concurrency` at a time to one api process of the
// build, which must come out of it running, ready and holding nothing (no upload slot, timer or
// connection; its heap back near its baseline). Builds the server apps first, runs the spec
// through jest (its global set-up gives it a database), then prints the figures that
// docs/security.md records: requests, seeds, statuses, 5xx, failures, crashes, memory.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('../bench/lib/harness');

const ROOT = join(__dirname, '..');
const options = parseArgs(process.argv.slice(2), { seeds: 10, requests: 2000, concurrency: 64, seedBase: -1 });
const base = options.seedBase >= 0 ? options.seedBase : Math.floor(Math.random() * 2 ** 30);
const seeds = Array.from({ length: options.seeds }, (_, i) => base + i);
const dir = mkdtempSync(join(tmpdir(), 'fuzz-long-'));
const report = join(dir, 'report.json');

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

console.log(
  `hostile uploads: ${seeds.length} seeds (${seeds[0]}…${seeds.at(-1)}) × ${options.requests} requests, ${options.concurrency} at once`,
);
if (run(process.execPath, [join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js'), 'build', 'api']) !== 0) process.exit(1);
const status = run(
  process.execPath,
  [join(ROOT, 'node_modules/jest/bin/jest.js'), 'test/fuzz/hostile-uploads.e2e-spec.ts', '--selectProjects', 'e2e', '--ci'],
  {
    SS_FUZZ_SEEDS: seeds.join(','),
    SS_FUZZ_REQUESTS: String(options.requests),
    SS_FUZZ_CONCURRENCY: String(options.concurrency),
    SS_FUZZ_REPORT: report,
  },
);
try {
  console.log(`\nfigures (replay with --seed-base ${base}):\n${readFileSync(report, 'utf8')}`);
} catch {
  console.log(`\nno figures: the campaign did not finish (replay with --seed-base ${base})`);
}
rmSync(dir, { recursive: true, force: true });
process.exit(status);
