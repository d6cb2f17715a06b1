// Orders the test files so the slowest start first: with several workers, a slow file that starts
// last keeps one worker busy long after the others ran out of work. Jest's own sequencer already
// sorts by duration (failed files first), but it only knows durations from its local cache, which
// a clean clone (CI) does not have: then it falls back to file size, a poor guess for e2e files.
// This one fills that gap from test/jest/durations.json (written by `npm run test:durations`).
//
// The browser files (test/browser/) also take turns for Chromium (test/support/browser-slot.ts):
// the order is planned so that a browser file comes up when the slot is free, and the workers run
// files without a browser meanwhile, rather than wait for it.
'use strict';
const { readFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
const DURATIONS = join(__dirname, 'durations.json');
/** The same setting as BROWSER_SLOTS in test/support/browser-slot.ts. */
const BROWSER_SLOTS = Number(process.env.SS_TEST_BROWSER_SLOTS ?? 1);
/** A guess for a file nobody timed yet, in ms. */
const UNKNOWN_MS = 30_000;
/**
 * How early a browser file is handed out before the plan frees the slot, in ms: durations vary
 * run to run, and a worker that waits a little for Chromium costs nothing while the cores are
 * busy, but a slot left free delays the browser files, the run's critical path.
 */
const BROWSER_LEAD_MS = 15_000;

const rel = (path) => relative(ROOT, path).split(sep).join('/');
const isBrowserFile = (test) => rel(test.path).startsWith('test/browser/');

function recorded() {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8'));
  } catch {
    return {};
  }
}

class SlowestFirstSequencer extends Sequencer {
  durations = recorded();

  constructor(options) {
    super(options);
    this.workers = Math.max(1, Number(options?.globalConfig?.maxWorkers) || 1);
  }

  /**
   * Milliseconds: this machine's last run of the file if jest remembers one, else the recorded
   * one. A browser file's recorded one first: jest's memory of it includes its wait for a slot,
   * test/jest/durations.json (test/jest/timing-reporter.js) does not.
   */
  time(test) {
    const seconds = this.durations[rel(test.path)];
    const recorded = seconds == null ? undefined : seconds * 1000;
    if (isBrowserFile(test) && recorded != null) return recorded;
    return super.time(test) ?? recorded;
  }

  /**
   * Failed files first, then the slowest, replanned as jest hands
   * files out (the next one to the first free worker): when the plan has a browser slot free, the
   * next browser file; else the next file without a browser.
   */
  sort(tests) {
    super.sort(tests); // sets each test's duration
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    const ms = (t) => t.duration ?? UNKNOWN_MS;
    // Failed last time first, then the slowest; a file never timed counts as UNKNOWN_MS.
    const sorted = [...tests].sort((a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || ms(b) - ms(a) || size(b) - size(a));
    if (this.workers < 2) return sorted;
    const remaining = [...sorted];
    const workers = new Array(this.workers).fill(0);
    const slots = new Array(BROWSER_SLOTS).fill(0);
    const planned = [];
    while (remaining.length) {
      const w = workers.indexOf(Math.min(...workers));
      const now = workers[w];
      const s = slots.indexOf(Math.min(...slots));
      // The browser files take turns, so their turns are the run's critical path: one starts the
      // moment a slot is free. Between turns, the files without a browser.
      let i = slots[s] <= now + BROWSER_LEAD_MS ? remaining.findIndex(isBrowserFile) : -1;
      if (i < 0) i = remaining.findIndex((t) => !isBrowserFile(t));
      if (i < 0) i = 0; // only browser files left: the first waits for the slot
      const [test] = remaining.splice(i, 1);
      if (isBrowserFile(test)) {
        const start = Math.max(now, slots[s]);
        slots[s] = workers[w] = start + ms(test);
      } else {
        workers[w] = now + ms(test);
      }
      planned.push(test);
    }
    return planned;
  }
}

module.exports = SlowestFirstSequencer;
