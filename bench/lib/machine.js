'use strict';
// Where the machine's CPU went during a measurement, including what did not belong to it: on a
// shared 2-core machine another process's burst moves req/s and p99 more than most code
// changes do, so every figure is printed with the CPU others used meanwhile, and a scenario
// waits for a quiet machine before it starts.

const { readdirSync, readFileSync } = require('node:fs');
const { sleep } = require('./harness');

const CLK_TCK = 100;

/** Parent pid and CPU seconds (utime + stime, all threads) of a live process; throws once it is gone. */
function processStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLK_TCK };
}

function cpuSecondsOf(pid) {
  try {
    return processStat(pid).cpuSeconds;
  } catch {
    return 0;
  }
}

function pids() {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
}

function machineSeconds() {
  const parts = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = parts[3] + parts[4];
  const total = parts.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / CLK_TCK, total: total / CLK_TCK };
}

/**
 * CPU seconds by pid of the PostgreSQL processes that work for `database` (its backends and the
 * shared auxiliary processes: WAL writer, checkpointer…, not other databases' backends; without
 * `database`, the auxiliary processes only), and of Redis. By pid, because backends come and go
 * with the pools' idle timeouts.
 */
function serviceSeconds(database) {
  const postgres = new Map();
  const redis = new Map();
  for (const entry of pids()) {
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'postgres') {
        // A backend's title is "postgres: [<cluster>: ]<user> <database> <host>(<port>) <state>".
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        const backend = /^postgres: (?:[^:]+: )?\S+ (\S+) \S+\(\d+\)/.exec(title);
        if (!backend || (database && backend[1] === database)) postgres.set(entry, cpuSecondsOf(entry));
      } else if (comm === 'redis-server') {
        redis.set(entry, cpuSecondsOf(entry));
      }
    } catch {
      /* gone */
    }
  }
  return { postgres, redis };
}

/** CPU used since `before` by the processes alive now (one that exited in between counts as other). */
function delta(now, before) {
  let sum = 0;
  for (const [pid, v] of now) sum += v - (before.get(pid) ?? 0);
  return sum;
}

/**
 * Snapshot now; call the result later for the CPU seconds each party used in between: the
 * server `pid`, PostgreSQL (see serviceSeconds), Redis, the bench itself, and `other`, what the
 * machine spent beyond them (other processes, the kernel's work not charged to a process): a
 * large `other` means the figures were disturbed.
 */
function cpuMeter({ pid, database }) {
  const before = {
    server: cpuSecondsOf(pid),
    ...serviceSeconds(database),
    bench: process.cpuUsage(),
    machine: machineSeconds(),
    at: performance.now(),
  };
  return () => {
    const services = serviceSeconds(database);
    const bench = process.cpuUsage(before.bench);
    const machine = machineSeconds();
    const used = {
      server: cpuSecondsOf(pid) - before.server,
      postgres: delta(services.postgres, before.postgres),
      redis: delta(services.redis, before.redis),
      bench: (bench.user + bench.system) / 1e6,
    };
    const busy = machine.busy - before.machine.busy;
    return {
      ...used,
      other: Math.max(0, busy - used.server - used.postgres - used.redis - used.bench),
      machineBusy: busy,
      machineTotal: machine.total - before.machine.total,
      wallSeconds: (performance.now() - before.at) / 1000,
    };
  };
}

/** CPU seconds by pid of every descendant of `root` (e.g. Chromium's processes), minus `exclude` and theirs. */
function descendantCpuSeconds(root, exclude) {
  const parent = new Map();
  const cpu = new Map();
  for (const entry of pids()) {
    try {
      const { ppid, cpuSeconds } = processStat(entry);
      parent.set(Number(entry), ppid);
      cpu.set(Number(entry), cpuSeconds);
    } catch {
      /* gone */
    }
  }
  const out = new Map();
  for (const [pid, seconds] of cpu) {
    if (exclude.includes(pid)) continue;
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (exclude.includes(p)) break;
      if (p === root) {
        out.set(pid, seconds);
        break;
      }
    }
  }
  return out;
}

/**
 * Waits until the machine was at most `maxBusy` (0..1) busy over one second, for at most
 * `timeoutMs`; returns the last reading so the caller can say how busy it was.
 */
async function waitForQuiet({ maxBusy = 0.15, timeoutMs = 120_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = machineSeconds();
    await sleep(1000);
    const b = machineSeconds();
    const busy = (b.busy - a.busy) / Math.max(1e-9, b.total - a.total);
    if (busy <= maxBusy || Date.now() >= deadline) return { busy, quiet: busy <= maxBusy };
  }
}

module.exports = { cpuMeter, descendantCpuSeconds, waitForQuiet };
