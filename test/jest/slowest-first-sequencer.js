// Orders the test files so the slowest start first: with several workers, a slow file that starts
// last keeps one worker busy long after the others ran out of work. Jest's own sequencer already
// sorts by duration (failed files first), but it only knows durations from its local cache, which
// a clean clone (CI) does not have: then it falls back to file size, a poor guess for e2e files.
// This one fills that gap from test/jest/durations.json (written by `npm run test:durations`).
'use strict';
const { readFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
const DURATIONS = join(__dirname, 'durations.json');

function recorded() {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8'));
  } catch {
    return {};
  }
}

class SlowestFirstSequencer extends Sequencer {
  durations = recorded();

  /** Milliseconds: this machine's last run of the file if jest remembers one, else the recorded one. */
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const seconds = this.durations[relative(ROOT, test.path).split(sep).join('/')];
    // Unknown files (new ones) get no time, and jest starts those first.
    return seconds == null ? undefined : seconds * 1000;
  }
}

module.exports = SlowestFirstSequencer;
