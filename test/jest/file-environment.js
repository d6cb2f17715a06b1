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

/**
 * The vm context every file of this worker shares, so that the packages the runtime keeps between
 * files (test/jest/shared-modules-runtime.js) live in the realm of every file that uses them.
 * `SS_TEST_ISOLATE_PACKAGES=1` turns it off (a context and packages per file, as jest does).
 */
let sharedContext = null;

/**
 * What jest's test framework keeps on the global object for one file (jest-circus's state and
 * event handlers, which call that file's runtime, expect's matchers and state, retry and timeout
 * settings): in a context that outlives the file, deleted when it ends, or the next file would
 * run the earlier files' handlers too.
 */
const PER_FILE_FRAMEWORK_KEYS = new Set(
  [
    'EVENT_HANDLERS',
    'TEST_TIMEOUT_SYMBOL',
    'RETRY_TIMES',
    'RETRY_TIMES_SETTER',
    'RETRY_IMMEDIATELY',
    'WAIT_BEFORE_RETRY',
    'LOG_ERRORS_BEFORE_RETRY',
    '$$jest-matchers-object',
  ].map((name) => Symbol.for(name)),
);

function dropFrameworkState(global) {
  for (const key of Reflect.ownKeys(global)) {
    if (typeof key === 'symbol' && (PER_FILE_FRAMEWORK_KEYS.has(key) || key.description === 'JEST_STATE_SYMBOL')) delete global[key];
  }
}

function requireBesideNodeEnvironment(name) {
  return require(require.resolve(name, { paths: [require.resolve('jest-environment-node')] }));
}

class FileEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.projectConfig = config.projectConfig;
    if (process.env.SS_TEST_ISOLATE_PACKAGES !== '1') this.shareContext();
    this.databases = [];
    this.global[DROP_AT_END] = this.databases;
    this.global[BROWSER_WAIT_MS] = 0;
    this.testPath = context.testPath;
    this.cpuAtStart = cpuTimes();
  }

  /**
   * Takes the worker's shared vm context instead of the one jest just made, so that packages
   * evaluated by an earlier file of this worker live in this file's realm. Fresh mocks and fake
   * timers are bound to it, as jest binds them to a new context.
   */
  shareContext() {
    this.sharesContext = true;
    if (sharedContext === null) {
      sharedContext = { context: this.context, global: this.global, globalProxy: this._globalProxy };
      return;
    }
    this._globalProxy.clear();
    this.context = sharedContext.context;
    this.global = sharedContext.global;
    this._globalProxy = sharedContext.globalProxy;
    // The same packages jest-environment-node builds these with.
    const { ModuleMocker } = requireBesideNodeEnvironment('jest-mock');
    const { LegacyFakeTimers, ModernFakeTimers } = requireBesideNodeEnvironment('@jest/fake-timers');
    const global = this.global;
    this.moduleMocker = new ModuleMocker(global);
    const timerConfig = {
      idToRef: (id) => ({ id, ref: () => timerConfig.idToRef(id), unref: () => timerConfig.idToRef(id) }),
      refToId: (timer) => timer?.id,
    };
    this.fakeTimers = new LegacyFakeTimers({ config: this.projectConfig, global, moduleMocker: this.moduleMocker, timerConfig });
    this.fakeTimersModern = new ModernFakeTimers({ config: this.projectConfig, global });
  }

  async teardown() {
    try {
      if (this.databases.length > 0) await dropAll(this.databases.splice(0));
    } finally {
      const waitMs = Number(this.global[BROWSER_WAIT_MS]) || 0;
      if (this.sharesContext) {
        // The context outlives the file: only what is the file's own goes.
        dropFrameworkState(this.global);
        this.fakeTimers?.dispose();
        this.fakeTimersModern?.dispose();
        this.fakeTimers = null;
        this.fakeTimersModern = null;
      } else await super.teardown();
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
