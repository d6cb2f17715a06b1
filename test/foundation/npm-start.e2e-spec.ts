import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, run } from '../support/processes';
import { pollUntil } from '../support/poll';

interface RunRecord {
  pid: number;
  env: Record<string, string>;
  withheld: string[];
  ports: Record<string, number>;
  webhookSecretsKey: string | null;
}
const local = require('../../scripts/local-services') as {
  runRecord(o: { env: Record<string, string | undefined>; ports: object; embeddedPostgres: boolean; pid?: number }): RunRecord;
  writeRunRecord(record: RunRecord, file?: string): void;
  readRunRecord(file?: string): { record: RunRecord } | { stale: RunRecord } | null;
  removeRunRecord(file?: string, pid?: number): void;
};
const builds = require('../../scripts/build') as {
  hashInputs(paths: string[], options?: { root?: string; skip?: (path: string) => boolean }): string;
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process of a process group, as `ps` lists them now. */
async function groupMembers(pgid: number): Promise<number[]> {
  const r = await run('ps', ['-eo', 'pid=,pgid=']);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, g]) => g === pgid)
    .map(([p]) => p);
}

/** A dead pid: a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const r = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => r.on('exit', resolve));
  return r.pid!;
}

describe("npm start's record of what it runs (scripts/local-services.js)", () => {
  let scratch: string;
  beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), 'ss-run-record-'))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('writes no password but the embedded PostgreSQL’s local one, and only a fingerprint of WEBHOOK_SECRETS_KEY', () => {
    const key = 'x'.repeat(43) + '=';
    const embedded = local.runRecord({
      env: {
        DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:4000/scene_studio',
        REDIS_URL: 'redis://127.0.0.1:4001',
        WEBHOOK_SECRETS_KEY: key,
      },
      ports: {},
      embeddedPostgres: true,
    });
    expect(embedded.env).toEqual({
      DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:4000/scene_studio',
      REDIS_URL: 'redis://127.0.0.1:4001',
    });
    expect(embedded.withheld).toEqual([]);
    expect(embedded.webhookSecretsKey).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(embedded)).not.toContain(key);

    const yours = local.runRecord({
      env: { DATABASE_URL: 'postgres://me:s3cret@db.example/app', REDIS_URL: 'redis://:pw@cache.example:6379', QUEUE_PREFIX: 'mine' },
      ports: {},
      embeddedPostgres: false,
    });
    expect(yours.env).toEqual({ QUEUE_PREFIX: 'mine' });
    expect(yours.withheld).toEqual(['DATABASE_URL', 'REDIS_URL']);
    expect(JSON.stringify(yours)).not.toMatch(/s3cret|:pw@/);
  });

  it('is written whole and for its owner only, read back while its process lives, stale once it is gone', async () => {
    const file = join(scratch, 'npm-start.json');
    const record = local.runRecord({ env: { REDIS_URL: 'redis://127.0.0.1:1' }, ports: { API_PORT: 1 }, embeddedPostgres: false });
    local.writeRunRecord(record, file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(local.readRunRecord(file)).toEqual({ record });

    const gone = { ...record, pid: await deadPid() };
    local.writeRunRecord(gone, file);
    expect(local.readRunRecord(file)).toEqual({ stale: gone });
    // Only its writer removes it (another npm start may have written it since).
    local.removeRunRecord(file, process.pid);
    expect(existsSync(file)).toBe(true);
    local.removeRunRecord(file, gone.pid);
    expect(existsSync(file)).toBe(false);
    expect(local.readRunRecord(file)).toBeNull();
    writeFileSync(file, 'not json');
    expect(local.readRunRecord(file)).toBeNull();
  });

  it('makes the CLI refuse, in one JSON object, when npm start runs on a URL whose password it did not write down', async () => {
    const dir = join(scratch, 'withheld');
    mkdirSync(dir);
    local.writeRunRecord(
      local.runRecord({ env: { DATABASE_URL: 'postgres://me:s3cret@db.example/app' }, ports: {}, embeddedPostgres: false }),
      join(dir, 'npm-start.json'),
    );
    const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env;
    const r = await run(process.execPath, [join(ROOT, 'scripts/cli.js'), 'org', 'list', '--json'], {
      env: { ...env, LOCAL_DATA_DIR: dir },
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        code: 'unavailable',
        message: expect.stringMatching(/runs on a DATABASE_URL of yours that holds a password.*set DATABASE_URL/),
      },
    });
  });
});

describe('the build’s content hash (scripts/build.js)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ss-build-inputs-'));
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    mkdirSync(join(root, 'src/node_modules'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src/deep/b.ts'), 'export const b = 2;\n');
    writeFileSync(join(root, 'src/a.spec.ts'), 'test\n');
    writeFileSync(join(root, 'src/node_modules/x.js'), 'x\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('changes with a file’s bytes or name, not with its times; skipped files and node_modules do not count', () => {
    const hash = () => builds.hashInputs(['src'], { root, skip: (p) => p.endsWith('.spec.ts') });
    const first = hash();
    utimesSync(join(root, 'src/a.ts'), new Date(0), new Date(0));
    expect(hash()).toBe(first);
    writeFileSync(join(root, 'src/a.spec.ts'), 'changed\n');
    writeFileSync(join(root, 'src/node_modules/x.js'), 'changed\n');
    expect(hash()).toBe(first);
    writeFileSync(join(root, 'src/deep/b.ts'), 'export const b = 3;\n');
    const second = hash();
    expect(second).not.toBe(first);
    writeFileSync(join(root, 'src/deep/c.ts'), 'export const b = 3;\n');
    expect(hash()).not.toBe(second);
  });
});

/**
 * `npm start` on a bare machine: nothing answers where PostgreSQL and Redis are looked for (the
 * probes point at closed ports), so it starts an embedded PostgreSQL and the redis-server on
 * PATH; the environment holds no DATABASE_URL or REDIS_URL, and every port is a free one. The
 * commands its box prints are run exactly as printed, in an environment as bare.
 */
describe('npm start on a machine with no PostgreSQL or Redis running, and the commands it prints', () => {
  let scratch: string;
  let npm: ChildProcess;
  let out = '';
  let bare: NodeJS.ProcessEnv;
  let ports: Record<string, number>;
  let runPid = 0;

  const box = () => out.slice(out.lastIndexOf('Scene Studio runs'));
  const sh = (command: string, env: NodeJS.ProcessEnv = bare) => run('sh', ['-c', command], { env });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'ss-npm-start-'));
    // As root the embedded PostgreSQL runs as the OS user postgres, which must enter the folder.
    chmodSync(scratch, 0o755);
    ports = {};
    for (const name of ['API_PORT', 'STUDIO_PORT', 'WORKER_PORT', 'API_OPS_PORT', 'STUDIO_OPS_PORT', 'PARTNER_APP_PORT']) {
      ports[name] = await freePort();
    }
    bare = { PATH: process.env.PATH, HOME: process.env.HOME, LOCAL_DATA_DIR: join(scratch, 'local') };
    npm = spawn('npm', ['start'], {
      cwd: ROOT,
      // Its own session and process group, as a terminal would run it: Ctrl-C is a SIGINT to the group.
      detached: true,
      env: {
        ...bare,
        LOCAL_POSTGRES_PROBE_PORT: String(await freePort()),
        LOCAL_REDIS_PROBE_PORT: String(await freePort()),
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    // An embedded PostgreSQL's first start (initdb), its migrations and three services booting;
    // a build too if the sources changed since the last one (npm test builds first).
    await pollUntil(async () => out.includes('Ctrl-C stops everything.') || npm.exitCode !== null, Boolean, {
      timeoutMs: 240_000,
      intervalMs: 200,
      what: 'npm start to print its box',
    });
    if (npm.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
    runPid = JSON.parse(readFileSync(join(bare.LOCAL_DATA_DIR!, 'npm-start.json'), 'utf8')).pid;
  }, 300_000);

  afterAll(async () => {
    if (npm?.exitCode === null) process.kill(-npm.pid!, 'SIGKILL');
    for (const pgid of [npm?.pid, runPid]) {
      for (const pid of pgid ? await groupMembers(pgid) : []) process.kill(pid, 'SIGKILL');
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('says boot in a few lines, without Nest’s wiring', () => {
    expect(out).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer|Mapped \{/);
    expect(out.split('\n').filter((l) => /^(api|worker|studio) +\|/.test(l)).length).toBeLessThan(15);
    expect(out).toMatch(/server: unchanged since its last build, skipped|server: building/);
  });

  it('prints a key command that works as printed, from a bare environment', async () => {
    const command = /\| +((?:LOCAL_DATA_DIR=\S+ )?npm run --silent cli -- key create --org org_\w+) +\|/.exec(box())?.[1];
    expect(command).toBeDefined();
    const human = await sh(command!);
    expect(human.code).toBe(0);
    const apiKey = /API key key_\w+: (sk_test_\S+)/.exec(human.stdout)?.[1];
    expect(apiKey).toBeDefined();
    // The api that npm start runs knows it.
    const res = await fetch(`http://127.0.0.1:${ports.API_PORT}/v1/scenes/scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(404);

    const json = await sh(`${command} --json`);
    expect(json.code).toBe(0);
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toEqual({
      keyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^sk_test_/),
      organizationId: expect.any(String),
    });
    expect(json.stderr).toBe('');
  });

  it('finds the run for org limits and usage too', async () => {
    const org = /cli -- key create --org (org_\w+)/.exec(box())![1];
    const prefix = `LOCAL_DATA_DIR=${bare.LOCAL_DATA_DIR}`;
    const limits = await sh(`${prefix} npm run --silent cli -- org limits --org ${org} --max-concurrent-generations 7 --json`);
    expect(JSON.parse(limits.stdout)).toEqual({
      organizationId: org,
      maxConcurrentGenerations: 7,
      generationsPerDay: null,
      maxWaitingGenerations: 1000,
    });
    const usage = await sh(`${prefix} npm run --silent cli -- usage --org ${org} --json`);
    expect(JSON.parse(usage.stdout)).toMatchObject({ organizationId: org, limits: { maxConcurrentGenerations: 7 } });
  });

  it('prints the environment other tools need, which reaches the same database without the record', async () => {
    const line =
      /\| +(DATABASE_URL=postgres:\/\/postgres:postgres@127\.0\.0\.1:\d+\/scene_studio REDIS_URL=redis:\/\/127\.0\.0\.1:\d+) +\|/.exec(
        box(),
      )?.[1];
    expect(line).toBeDefined();
    // The production entry point, which never reads npm start's record: only the line tells it.
    const r = await sh(`${line} node dist/apps/cli/src/main.js org list --json`, { PATH: bare.PATH, HOME: bare.HOME });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).organizations).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Local test organization' })]),
    );
  });

  it('runs a replica worker beside it on a free port; one on a taken port stops naming WORKER_PORT before it joins the queues', async () => {
    const taken = await sh(`WORKER_PORT=${ports.WORKER_PORT} npm run --silent start:replica -- worker`);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toContain(
      `port ${ports.WORKER_PORT} (WORKER_PORT) is in use by another process: set WORKER_PORT to a free port (0: any free port)`,
    );
    expect(taken.stdout).not.toContain('processing maintenance');

    const replica = spawn('npm', ['run', '--silent', 'start:replica', '--', 'worker'], {
      cwd: ROOT,
      env: bare,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    replica.stdout!.on('data', (d) => (said += d));
    replica.stderr!.on('data', (d) => (said += d));
    const exited = new Promise<number | null>((resolve) => replica.on('exit', resolve));
    try {
      const port = Number(
        await pollUntil(async () => /worker health and metrics on [\d.]+:(\d+)/.exec(said)?.[1], Boolean, {
          timeoutMs: 60_000,
          intervalMs: 100,
          what: 'the replica worker to serve its port',
        }),
      );
      expect(port).not.toBe(ports.WORKER_PORT);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      // Ctrl-C in its terminal.
      process.kill(-replica.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(said).toContain('Stopped the worker replica.');
    } finally {
      if (replica.exitCode === null) process.kill(-replica.pid!, 'SIGKILL');
    }
  });

  it('stops everything on Ctrl-C within seconds, says what it stopped, and leaves nothing behind', async () => {
    const members = [...(await groupMembers(npm.pid!)), ...(await groupMembers(runPid))];
    // npm and the relay in the terminal's group; the run, the services, PostgreSQL and Redis in the run's.
    expect(members.length).toBeGreaterThanOrEqual(8);
    const exited = new Promise<number | null>((resolve) => npm.on('exit', resolve));
    const before = out.length;
    process.kill(-npm.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    const stop = out.slice(before);
    // Once, in order: each service was asked once (by the run, not by the terminal as well) and
    // drained with its PostgreSQL and Redis still up, so none waited out its shutdown timeout.
    expect(stop.match(/SIGINT: stopping every process/g)).toHaveLength(1);
    expect(stop).not.toMatch(/received SIGINT|while stopping|ECONNREFUSED|still running after|exiting now/);
    expect(out).toMatch(/Stopped api, worker, studio and partner, then the embedded PostgreSQL and the redis-server it had started/);
    expect(existsSync(join(bare.LOCAL_DATA_DIR!, 'npm-start.json'))).toBe(false);
    await pollUntil(
      async () => members.filter(alive),
      (left) => left.length === 0,
      { timeoutMs: 5000, what: 'every process of the run to be gone' },
    );
  });
});
