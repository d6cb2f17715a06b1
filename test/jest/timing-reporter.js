// Prints, after every run, the ten slowest test files and the time each project (tier) took, so
// a file that got slow is seen the day it happens. With RECORD_TEST_DURATIONS=1 (what
// `npm run test:durations` sets) it also writes each file's duration to test/jest/durations.json,
// which the sequencer (slowest-first-sequencer.js) reads to start the slowest files first.
'use strict';
const { existsSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
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
    const notes = fileNotes();
    const files = results.testResults
      .filter((r) => !r.skipped && r.perfStats.end > 0)
      .map((r) => {
        const wait = notes.get(r.testFilePath)?.waitMs ?? 0;
        return {
          path: rel(r.testFilePath),
          project: r.displayName?.name ?? 'default',
          start: r.perfStats.start,
          end: r.perfStats.end,
          // The file's own time: a browser file's wait for Chromium is the queue's, not its work.
          ms: Math.max(0, (r.perfStats.runtime || r.perfStats.end - r.perfStats.start) - wait),
          wait,
        };
      });
    if (files.length === 0) return;
    const out = [];
    out.push('', `Slowest test files (of ${files.length}; without waits for a browser slot):`);
    for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST))
      out.push(`  ${seconds(f.ms).padStart(9)}  ${f.path}${f.wait >= 1000 ? ` (and ${seconds(f.wait)} waiting for Chromium)` : ''}`);
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
    );
    // The browser files take turns for Chromium, so their own times are the run's floor: a wall
    // far above it means the slot stood idle (a poor plan) or the other files are the long pole.
    const browser = files.filter((f) => f.path.startsWith('test/browser/'));
    if (browser.length > 0) {
      const own = browser.reduce((s, f) => s + f.ms, 0);
      const waited = browser.reduce((s, f) => s + f.wait, 0);
      out.push(
        `  browser  ${String(browser.length).padStart(4)} files  ${seconds(own).padStart(9)}  in turns, ${seconds(waited)} waited for a turn`,
      );
    }
    const byCpu = [...notes]
      .filter(([, n]) => n.selfMs !== undefined)
      .map(([path, n]) => ({ path: rel(path), selfMs: n.selfMs, childrenMs: n.childrenMs }));
    if (byCpu.length > 0) {
      // On two cores the run is CPU-bound: these are the files that make it long.
      byCpu.sort((a, b) => b.selfMs + b.childrenMs - (a.selfMs + a.childrenMs));
      const total = byCpu.reduce((s, c) => s + c.selfMs + c.childrenMs, 0);
      // Chromium's renderer and GPU processes are reaped by its own processes, which end without
      // waiting for them: most of a browser file's drawing is not in its figure.
      out.push(
        `Most CPU (of ${seconds(total)} in ${byCpu.length} service and e2e files: its jest worker + the processes it started and reaped; most of Chromium's drawing not counted):`,
      );
      for (const c of byCpu.slice(0, SLOWEST))
        out.push(`  ${seconds(c.selfMs + c.childrenMs).padStart(9)}  ${c.path} (${seconds(c.selfMs)} + ${seconds(c.childrenMs)})`);
    }
    out.push('');
    process.stderr.write(out.join('\n') + '\n');
    if (process.env.RECORD_TEST_DURATIONS === '1') record(files);
  }
}

/**
 * Each service and e2e file's note, by absolute path: its CPU and its waits for a browser slot,
 * from the lines test/jest/file-environment.js writes for the run (read once, then removed).
 */
function fileNotes() {
  const notes = new Map();
  const runId = process.env.SS_TEST_RUN_ID;
  if (!runId) return notes;
  const file = join(tmpdir(), `ss-test-${runId}-files.jsonl`);
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      const { path, ...note } = JSON.parse(line);
      notes.set(path, note);
    }
    rmSync(file, { force: true });
  } catch {
    // Only unit specs ran: no file wrote a note.
  }
  return notes;
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
