import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface Completed {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI (`npm run cli` minus npm) with the given environment. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<Completed> {
  return run(process.execPath, [join(ROOT, 'scripts/cli.js'), ...args], { env: { ...process.env, ...env } });
}

export function run(cmd: string, args: string[], options: SpawnOptions = {}): Promise<Completed> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A long-running process of ours (api, worker, studio) started from the build. */
export class ServiceProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** `nodeArgs` go to node before the entry point: `--require` of a test fixture, for one. */
  constructor(app: 'api' | 'worker' | 'studio', env: Record<string, string | undefined>, nodeArgs: string[] = []) {
    this.child = spawn(process.execPath, [...nodeArgs, join(ROOT, `dist/apps/${app}/src/main.js`)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d) => (this.stdout += d));
    this.child.stderr!.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves when a log line matches, rejects if the process exits first or the deadline passes. */
  waitForOutput(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${this.stdout}\n${this.stderr}`));
      }, timeoutMs);
      const check = () => {
        if (pattern.test(this.stdout) || pattern.test(this.stderr)) {
          cleanup();
          resolve();
        }
      };
      const onExit = () => {
        cleanup();
        reject(new Error(`process exited before ${pattern}:\n${this.stdout}\n${this.stderr}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.child.stdout!.off('data', check);
        this.child.stderr!.off('data', check);
        this.child.off('exit', onExit);
      };
      this.child.stdout!.on('data', check);
      this.child.stderr!.on('data', check);
      this.child.once('exit', onExit);
      check();
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/**
 * A worker process of the build on the test environment's database and queue prefix, on a free
 * port, with `extra` settings; resolves once it serves its health port.
 */
export async function startWorkerProcess(
  env: { databaseUrl: string; queuePrefix: string },
  extra: Record<string, string> = {},
): Promise<ServiceProcess> {
  const worker = new ServiceProcess('worker', {
    DATABASE_URL: env.databaseUrl,
    QUEUE_PREFIX: env.queuePrefix,
    WORKER_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  });
  try {
    await worker.waitForOutput(/worker health and metrics on/);
  } catch (e) {
    // Not left running unseen by the caller's cleanup.
    await worker.stop('SIGKILL');
    throw e;
  }
  return worker;
}

/**
 * A studio process of the build on the test environment's database and queue prefix, on a free
 * port; resolves once it serves its health port. `url` is its public address.
 */
export async function startStudioProcess(
  env: { databaseUrl: string; queuePrefix: string },
  extra: Record<string, string> = {},
): Promise<ServiceProcess & { url: string }> {
  const port = await freePort();
  const studio = new ServiceProcess('studio', {
    DATABASE_URL: env.databaseUrl,
    QUEUE_PREFIX: env.queuePrefix,
    STUDIO_PORT: String(port),
    STUDIO_OPS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  });
  try {
    await studio.waitForOutput(/studio health and metrics on/);
  } catch (e) {
    await studio.stop('SIGKILL');
    throw e;
  }
  return Object.assign(studio, { url: `http://127.0.0.1:${port}` });
}

/**
 * A TCP port nothing listens on, for a process the test starts and that listens later. Drawn
 * below the kernel's ephemeral range (`ip_local_port_range`, 32768–60999 here): a port from
 * listening on 0 is one of those, and the thousands of outgoing connections of a run may take it
 * as their source port before the process listens (EADDRINUSE: seen in npm-start, whose services
 * listen after a build). Each jest worker draws from a slice of its own, and a file never gets a
 * port twice, so two picks do not collide before either listens.
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const slices = 9; // the global set-up, then jest workers 1–8 (more share slices)
  const low = 10_000;
  const size = Math.floor((ephemeralLow() - low) / slices);
  const start = low + (Number(process.env.JEST_WORKER_ID ?? 0) % slices) * size;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = start + Math.floor(Math.random() * size);
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      // All interfaces: taken if anything listens on the port, on any address.
      s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${start}–${start + size - 1}`);
}

const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralLow(): number {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(first) && first > 12_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}
