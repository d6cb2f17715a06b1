// Runs a set of long-lived processes as one (used by `npm start`, tested by
// test/foundation/local-start.e2e-spec.ts):
// - each child is spawned directly (no shell), so a signal reaches the process itself, not a
//   `sh -c` that would leave it running;
// - SIGINT, SIGTERM or SIGHUP to this process (Ctrl-C, an IDE's stop button, a supervisor)
//   sends SIGTERM to every child, waits for them (SIGKILL after `graceMs`), then runs `onStop`;
// - a child that exits on its own (a port in use at boot, a crash) stops the others, and the
//   whole exits non-zero, naming the child and the last lines it wrote;
// - each output line is prefixed with the child's name, JSON log lines optionally prettified.
'use strict';
const { spawn } = require('node:child_process');
const readline = require('node:readline');

const COLORS = [36, 35, 32, 33, 34, 31];

/** A JSON log line by its message alone (the reason a process stopped), any other line as it is. */
function readable(line) {
  try {
    const o = JSON.parse(line);
    return typeof o?.msg === 'string' ? `${o.level ? `${o.level}: ` : ''}${o.msg}` : line;
  } catch {
    return line;
  }
}
const paint = (code, text, on) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

/**
 * @param {{ name: string, command: string, args: string[], env?: object, cwd?: string }[]} specs
 * @param {{ format?: (line: string) => string, graceMs?: number, onStopping?: () => void,
 *           onStop?: (stopped: string[]) => Promise<void>, out?: NodeJS.WritableStream, color?: boolean,
 *           ownProcessGroups?: boolean, nameWidth?: number }} options
 *   `onStopping` runs when a stop begins, `onStop` once every child has exited, with the names of
 *   those this stop ended (a child that had exited by itself is not among them). With
 *   `ownProcessGroups` each child runs in a process group of its own, so a Ctrl-C in the terminal
 *   reaches this process alone, which stops the children itself (in order, and once).
 * @returns {{ children: Map<string, import('node:child_process').ChildProcess>, done: Promise<number>,
 *             add: (spec: object) => boolean, stop: (reason?: string) => Promise<number> }}
 */
function supervise(specs, options = {}) {
  const out = options.out ?? process.stdout;
  const color = options.color ?? Boolean(out.isTTY);
  const format = options.format ?? ((line) => line);
  const graceMs = options.graceMs ?? 30_000;
  specs = [...specs];
  const width = Math.max(...specs.map((s) => s.name.length), options.nameWidth ?? 0);
  const children = new Map();
  const tails = new Map();
  let stopping = null;
  let exitCode = 0;
  let resolveDone;
  const done = new Promise((r) => (resolveDone = r));

  const print = (name, i, line) => {
    const text = format(line).replace(/\n$/, '');
    for (const l of text.split('\n')) out.write(`${paint(COLORS[i % COLORS.length], name.padEnd(width), color)} | ${l}\n`);
  };

  const start = (spec, i) => {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: Boolean(options.ownProcessGroups),
    });
    children.set(spec.name, child);
    const tail = [];
    tails.set(spec.name, tail);
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 5) tail.shift();
        print(spec.name, i, line);
      });
    }
    child.once('error', (e) => {
      tail.push(String(e.message));
      if (!stopping) void stop(`${spec.name} could not be started: ${e.message}`, 1);
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const last = tail.length ? `; its last lines:\n${tail.map((l) => `    ${readable(l)}`).join('\n')}` : '';
      void stop(`${spec.name} ${how}, so the others are stopped too${last}`, code === 0 && !signal ? 1 : code || 1);
    });
  };
  specs.forEach(start);

  function exited(child) {
    return child.exitCode !== null || child.signalCode !== null;
  }

  async function stop(reason, code = 0) {
    if (stopping) return stopping;
    exitCode = code;
    stopping = (async () => {
      options.onStopping?.();
      if (reason) out.write(`\n${paint(code ? 31 : 1, reason, color)}\n`);
      const stopped = [];
      const waits = [...children].map(
        ([name, child]) =>
          new Promise((resolve) => {
            if (exited(child) || child.pid === undefined) return resolve();
            stopped.push(name);
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
            child.once('exit', () => clearTimeout(timer));
          }),
      );
      await Promise.all(waits);
      if (options.onStop) await options.onStop(specs.map((s) => s.name).filter((n) => stopped.includes(n)));
      resolveDone(exitCode);
      return exitCode;
    })();
    return stopping;
  }

  // A stop that was asked for is a clean exit (0), whichever signal asked.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => void stop(`${signal}: stopping every process`, 0));
  }

  /** One more child, supervised like the first ones; none once a stop has begun. */
  const add = (spec) => {
    if (stopping) return false;
    specs.push(spec);
    start(spec, specs.length - 1);
    return true;
  };

  return { children, done, add, stop: (reason) => stop(reason, 0) };
}

module.exports = { supervise };
