'use strict';
// npm run bench:cli [-- --runs 7 --compare-dist ../other/dist --compare-label before]
//
// The operator CLI's common commands, each a whole process from start to exit, as an operator
// runs them (docs/performance.md, "Operator CLI"). Each command runs `--runs` times, in turn with
// the baseline: the least any command of this stack costs — a node process that loads what every
// command needs (Nest, TypeORM, pg, class-validator, pino, ioredis) and runs one query on the same
// database. With `--compare-dist`, the same commands of another build run in turn as well (an
// older build, to see what a change did). Reported per command: the median wall time and CPU
// time (user + system, from the process itself at exit), and their ratios to the baseline's
// medians. A fresh database and queue prefix; everything is removed at the end. Figures are
// printed, not asserted.

const h = require('./lib/harness');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const { fmt, log, percentile } = h;

const options = h.parseArgs(process.argv.slice(2), { runs: 7, compareDist: '', compareLabel: 'compared' });

// Loaded with -r into every measured process: its own CPU time, peak RSS and wall time at exit.
const REPORT = `
const started = Date.now() - Math.round(performance.now());
process.on('exit', () => {
  const cpu = process.cpuUsage();
  const line = JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs: Date.now() - started, maxRssKiB: process.resourceUsage().maxRSS });
  require('node:fs').appendFileSync(process.env.BENCH_CLI_REPORT, line + '\\n');
});
`;

// The floor: what any command of this stack loads, and one query.
const FLOOR = `
require('reflect-metadata'); require('@nestjs/core'); require('@nestjs/common'); require('typeorm'); require('@nestjs/typeorm');
require('class-validator'); require('class-transformer'); require('pino'); require('nestjs-pino'); require('ioredis');
const { Client } = require('pg');
const c = new Client({ connectionString: process.env.DATABASE_URL });
c.connect().then(() => c.query('SELECT 1')).then(() => c.end()).then(() => process.stdout.write('{}\\n'));
`;

/** The command as a row label, its ids shortened. */
const label = (command) => command.join(' ').replace(/\b(org|key)_\w+/g, '$1_…');

function runOnce(args, env, reportFile) {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: h.ROOT,
      env: { ...process.env, ...env, BENCH_CLI_REPORT: reportFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}:\n${out}\n${err}`));
      const lines = readFileSync(reportFile, 'utf8').trim().split('\n');
      resolveRun({ ...JSON.parse(lines.at(-1)), wallMs, stdout: out });
    });
  });
}

async function main() {
  h.ensureBuilt();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  h.onCleanup('remove the scratch folder', () => rmSync(scratch, { recursive: true, force: true }));
  const preload = join(scratch, 'report.js');
  writeFileSync(preload, REPORT);
  const reportFile = join(scratch, 'report.jsonl');
  writeFileSync(reportFile, '');

  const db = await h.createDatabase();
  const queuePrefix = `bench-${randomBytes(4).toString('hex')}`;
  h.onCleanup(`delete Redis keys ${queuePrefix}:*`, () => h.deleteRedisPrefix(queuePrefix));
  const env = { DATABASE_URL: db.url, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'info', NODE_ENV: 'development' };
  log(`database ${db.name}: migrating, creating an organization and a key`);
  h.cliJson(['migrate'], env);
  const org = h.cliJson(['org', 'create', '--name', 'Bench CLI', '--test'], env).organizationId;
  const key = h.cliJson(['key', 'create', '--org', org], env).keyId;

  const commands = [
    ['org', 'create', '--name', 'Bench', '--test'],
    ['org', 'list'],
    ['org', 'limits', '--org', org],
    ['usage', '--org', org],
    ['key', 'create', '--org', org],
    ['key', 'list', '--org', org],
    ['key', 'revoke', '--key', key],
    ['origin', 'add', '--org', org, '--origin', 'https://bench.example'],
    ['origin', 'list', '--org', org],
    ['origin', 'remove', '--org', org, '--origin', 'https://not-approved.example'],
    ['migrate'],
  ];
  const sides = [
    { label: 'this build', main: join(h.ROOT, 'dist/apps/cli/src/main.js') },
    ...(options.compareDist ? [{ label: options.compareLabel, main: join(resolve(options.compareDist), 'apps/cli/src/main.js') }] : []),
  ];
  const floorArgs = ['-r', preload, '-e', FLOOR];

  const rows = [
    [
      'command',
      ...sides.flatMap((s) => [`${s.label} wall ms`, 'cpu ms']),
      'baseline wall ms',
      'cpu ms',
      'wall / baseline',
      'cpu / baseline',
      'peak RSS MiB',
    ],
  ];
  for (const command of commands) {
    const samples = { floor: [], ...Object.fromEntries(sides.map((s) => [s.label, []])) };
    // In turn, so that a burst of another process's load falls on every side alike.
    for (let i = 0; i < options.runs + 1; i++) {
      const round = [];
      for (const side of sides) round.push([side.label, await runOnce(['-r', preload, side.main, ...command, '--json'], env, reportFile)]);
      round.push(['floor', await runOnce(floorArgs, env, reportFile)]);
      // The first round warms the page cache and is not counted.
      if (i > 0) for (const [label, r] of round) samples[label].push(r);
    }
    const med = (label, field) =>
      percentile(
        samples[label].map((r) => r[field]),
        50,
      );
    const ours = sides[0].label;
    rows.push([
      label(command),
      ...sides.flatMap((s) => [fmt(med(s.label, 'wallMs'), 0), fmt(med(s.label, 'cpuMs'), 0)]),
      fmt(med('floor', 'wallMs'), 0),
      fmt(med('floor', 'cpuMs'), 0),
      fmt(med(ours, 'wallMs') / med('floor', 'wallMs'), 2),
      fmt(med(ours, 'cpuMs') / med('floor', 'cpuMs'), 2),
      fmt(med(ours, 'maxRssKiB') / 1024, 0),
    ]);
    log(`${label(command)}: done`);
  }
  process.stdout.write(
    `\n${h.table(rows)}\n\nmedians of ${options.runs} runs each, after one not counted; baseline: Nest, TypeORM, pg, class-validator, pino and ioredis loaded, one query\n`,
  );
  return 0;
}

h.runBench(main);
