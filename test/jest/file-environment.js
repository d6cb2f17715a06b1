// The test environment of the service and e2e tiers: jest's node environment, plus the one step
// that must come after every hook of a file, dropping the file's databases, and the file's note
// for the timing reporter (test/jest/timing-reporter.js): the CPU the file cost (its jest
// worker's, and that of the processes it started and reaped: the apps it spawned, the CLI; on two
// cores the suite is CPU-bound, so CPU, not wall time, says which files to make cheaper), and how
// long it waited for a browser slot (test/support/browser-slot.ts), which is the queue's time, not
// the file's work.
//
// A file's databases (test/support/environment.ts) used to be dropped in the afterAll that
// created them, but jest-circus runs a describe block's afterAll hooks in declaration order: a
// file that set up its environment first and closed an in-process worker or api in a later
// afterAll had the database dropped under the running app. `DROP DATABASE … WITH (FORCE)` ends
// the app's connections, and their unhandled 57P01 errors failed the file (or the next one in
// that jest worker). Here the drop happens in the environment's teardown, which jest runs after
// every hook of the file and after its module registry is gone: whatever the file closes, in any
// order, is closed by then. The drop uses this process's own `pg`, not the file's modules.
'use strict';
const NodeEnvironment = require('jest-environment-node').TestEnvironment;
const { appendFileSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');

/** The key under which a file registers its databases (test/support/environment.ts). */
const DROP_AT_END = '__ssDatabasesToDropAtFileEnd';
/** The key under which a browser file adds up its waits for a slot (test/support/browser-slot.ts). */
const BROWSER_WAIT_MS = '__ssBrowserWaitMs';

class FileEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.databases = [];
    this.global[DROP_AT_END] = this.databases;
    this.global[BROWSER_WAIT_MS] = 0;
    this.testPath = context.testPath;
    this.cpuAtStart = cpuTimes();
  }

  async teardown() {
    try {
      if (this.databases.length > 0) await dropAll(this.databases.splice(0));
    } finally {
      const waitMs = Number(this.global[BROWSER_WAIT_MS]) || 0;
      await super.teardown();
      noteFile(this.testPath, this.cpuAtStart, cpuTimes(), waitMs);
    }
  }
}

/** Linux's clock ticks per second (`getconf CLK_TCK`), 100 on every kernel this runs on. */
const TICKS_PER_SECOND = 100;

/**
 * This process's CPU time and that of its children it has reaped, in ms, from /proc/self/stat
 * (utime, stime, cutime, cstime); null where there is no /proc.
 */
function cpuTimes() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (i) => (Number(f[i]) * 1000) / TICKS_PER_SECOND;
    return { self: ms(11) + ms(12), children: ms(13) + ms(14) };
  } catch {
    return null;
  }
}

/** Appends the file's line to the run's notes (test/jest/timing-reporter.js reads and removes them). */
function noteFile(testPath, start, end, waitMs) {
  const runId = process.env.SS_TEST_RUN_ID;
  if (!runId || !testPath) return;
  const cpu = start && end ? { selfMs: end.self - start.self, childrenMs: end.children - start.children } : {};
  try {
    appendFileSync(join(tmpdir(), `ss-test-${runId}-files.jsonl`), JSON.stringify({ path: testPath, waitMs, ...cpu }) + '\n');
  } catch {
    // A note for the report only: never a reason to fail a file.
  }
}

async function dropAll(names) {
  const serverUrl = process.env.SS_TEST_SERVER_URL;
  if (!serverUrl) return;
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), application_name: 'ss-test-drop' });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

module.exports = FileEnvironment;
