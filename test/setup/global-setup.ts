// Global setup runs outside jest's module mapper, hence relative imports.
import { loadConfig, runMigrations } from '../../libs/core/src';
import { databaseUrl, dropDatabase, recreateDatabase } from '../../libs/core/src/testing';
import { MIGRATIONS } from '../../apps/cli/src/migrations';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalService, localServices } from './local-services';
import { startLocalS3 } from '../support/s3-server';

/** Drops databases of earlier runs whose jest process is gone (a crash or Ctrl-C leaves them). */
async function dropOrphans(serverUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await client.connect();
  const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'ss_test_%'`);
  await client.end();
  for (const { datname } of rows) {
    const pid = Number(datname.split('_')[2]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (!alive) await dropDatabase(serverUrl, datname);
  }
}

export default async function globalSetup(_globalConfig: unknown, project: { displayName?: { name: string } }): Promise<void> {
  // The service tier calls the domain in-process: only the e2e suites need the build.
  if (project.displayName?.name === 'e2e') await buildWhatChanged();
  await startLocalServices();
  // Jest runs this once per project (service, e2e) in one process: one migrated template serves both.
  if (process.env.SS_TEST_RUN_ID?.startsWith(`${process.pid}_`)) return;
  const serverUrl = loadConfig().database.url;
  const runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const template = `ss_test_${runId}_template`;
  try {
    await dropOrphans(serverUrl);
    await recreateDatabase(serverUrl, template);
    await runMigrations(loadConfig({ DATABASE_URL: databaseUrl(serverUrl, template) }), MIGRATIONS);
  } catch (e) {
    // No teardown follows a failed set-up: stop the PostgreSQL or Redis it started.
    await localServices().stopAll();
    throw e;
  }
  // Inherited by the test workers.
  process.env.SS_TEST_RUN_ID = runId;
  process.env.SS_TEST_TEMPLATE = template;
  process.env.SS_TEST_SERVER_URL = serverUrl;
}

/**
 * Suites that spawn real processes (api, worker, studio, cli) and the browser suites run the
 * build: the parts whose sources changed since it was made are built again first (scripts/build.js
 * compares content hashes), so `npx jest <file>` after an edit never tests a stale build. After
 * `npm test`'s own build, nothing is stale and this only hashes the sources (a few seconds).
 */
async function buildWhatChanged(): Promise<void> {
  const { build } = require('../../scripts/build') as {
    build(o: { onlyChanged: boolean; log: (m: string) => void }): Promise<{ built: string[]; skipped: string[] }>;
  };
  await build({ onlyChanged: true, log: (m) => (/skipped$/.test(m) ? undefined : process.stderr.write(`[global-setup] ${m}\n`)) });
}

/**
 * The same fallback as `npm start` (scripts/local-services.js): DATABASE_URL, else 127.0.0.1:5432,
 * else an embedded PostgreSQL 15 (data in .local/test/, apart from `npm start`'s so both can run
 * at once); REDIS_URL, else 127.0.0.1:6379, else redis-server from PATH. The URLs go into
 * process.env, which the test workers inherit. Jest runs this once per project (service, e2e) in
 * one process, so what it starts is kept on globalThis and started once.
 */
async function startLocalServices(): Promise<void> {
  const registry = localServices();
  registry.users += 1;
  if (registry.started) return;
  registry.started = true;
  const local = require('../../scripts/local-services') as {
    LOCAL_DIR: string;
    ensurePostgres(o: { dataDir: string; log: (m: string) => void }): Promise<LocalService>;
    ensureRedis(o: { dataDir: string; persist: boolean }): Promise<LocalService>;
  };
  const log = (m: string) => process.stderr.write(`[global-setup] ${m}\n`);
  let redis: LocalService;
  let postgres: LocalService;
  try {
    redis = await local.ensureRedis({ dataDir: join(local.LOCAL_DIR, 'test/redis'), persist: false });
    registry.services.push(redis);
    postgres = await local.ensurePostgres({ dataDir: join(local.LOCAL_DIR, 'test/postgres'), log });
    registry.services.push(postgres);
  } catch (e) {
    // Jest runs no teardown after a failed set-up: stop what was started, or it outlives the run.
    await registry.stopAll();
    throw e;
  }
  process.env.REDIS_URL = redis.url;
  process.env.DATABASE_URL = postgres.url;
  // `BLOB_STORE=s3 npm test` without an S3_ENDPOINT: the whole suite against a local S3 server.
  if (process.env.BLOB_STORE === 's3' && !process.env.S3_ENDPOINT) {
    const dir = join(local.LOCAL_DIR, 'test/s3');
    mkdirSync(dir, { recursive: true });
    const s3 = await startLocalS3(dir);
    registry.services.push({ url: s3.endpoint, source: 'local S3 server (s3rver)', stop: s3.close });
    Object.assign(process.env, s3.config);
    log(`S3: s3rver at ${s3.endpoint}, bucket ${s3.bucket}`);
  }
  if (!/^(DATABASE_URL|127\.)/.test(postgres.source)) log(`PostgreSQL: ${postgres.source}`);
  if (!/^(REDIS_URL|127\.)/.test(redis.source)) log(`Redis: ${redis.source}`);
}
