// Prints, after every run, the ten slowest test files and the time each project (tier) took, so
// a file that got slow is seen the day it happens. With RECORD_TEST_DURATIONS=1 (what
// `npm run test:durations` sets) it also writes each file's duration to test/jest/durations.json,
// which the sequencer (slowest-first-sequencer.js) reads to start the slowest files first.
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const DURATIONS = join(__dirname, 'durations.json');
const SLOWEST = 10;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rel = (path) => relative(ROOT, path).split(sep).join('/');

class TimingReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((r) => !r.skipped && r.perfStats.end > 0)
      .map((r) => ({
        path: rel(r.testFilePath),
        project: r.displayName?.name ?? 'default',
        start: r.perfStats.start,
        end: r.perfStats.end,
        ms: r.perfStats.runtime || r.perfStats.end - r.perfStats.start,
      }));
    if (files.length === 0) return;
    const out = [];
    out.push('', `Slowest test files (of ${files.length}):`);
    for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) out.push(`  ${seconds(f.ms).padStart(9)}  ${f.path}`);
    out.push('Time per project (sum of its files; from its first start to its last end):');
    const projects = new Map();
    for (const f of files) {
      const p = projects.get(f.project) ?? { files: 0, ms: 0, start: Infinity, end: 0 };
      p.files += 1;
      p.ms += f.ms;
      p.start = Math.min(p.start, f.start);
      p.end = Math.max(p.end, f.end);
      projects.set(f.project, p);
    }
    for (const [name, p] of [...projects].sort((a, b) => b[1].ms - a[1].ms))
      out.push(
        `  ${name.padEnd(8)} ${String(p.files).padStart(4)} files  ${seconds(p.ms).padStart(9)}  ${seconds(p.end - p.start).padStart(9)} wall`,
      );
    out.push(
      `  all      ${String(files.length).padStart(4)} files  ${seconds(files.reduce((s, f) => s + f.ms, 0)).padStart(9)}  ${seconds(Date.now() - results.startTime).padStart(9)} wall`,
      '',
    );
    process.stderr.write(out.join('\n') + '\n');
    if (process.env.RECORD_TEST_DURATIONS === '1') record(files);
  }
}

/** Updates the durations of the files that ran; keeps the others', drops those of deleted files. */
function record(files) {
  let durations = {};
  try {
    durations = JSON.parse(readFileSync(DURATIONS, 'utf8'));
  } catch {
    durations = {};
  }
  for (const f of files) durations[f.path] = Math.round(f.ms / 100) / 10;
  const kept = Object.keys(durations)
    .filter((path) => existsSync(join(ROOT, path)))
    .sort();
  writeFileSync(DURATIONS, JSON.stringify(Object.fromEntries(kept.map((p) => [p, durations[p]])), null, 2) + '\n');
  process.stderr.write(`Recorded ${files.length} durations in ${rel(DURATIONS)}\n`);
}

module.exports = TimingReporter;
