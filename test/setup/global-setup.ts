// Global setup runs outside jest's module mapper, hence relative imports.
import { loadConfig, runMigrations } from '../../libs/core/src';
import { databaseUrl, dropDatabase, recreateDatabase } from '../../libs/core/src/testing';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

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

export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..');
  if (!existsSync(join(root, 'dist/apps/api/src/main.js'))) {
    // Suites that spawn real processes need the build; `npm test` builds first anyway.
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const serverUrl = loadConfig().database.url;
  const runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
  await dropOrphans(serverUrl);
  const template = `ss_test_${runId}_template`;
  await recreateDatabase(serverUrl, template);
  await runMigrations(loadConfig({ DATABASE_URL: databaseUrl(serverUrl, template) }));
  // Inherited by the test workers.
  process.env.SS_TEST_RUN_ID = runId;
  process.env.SS_TEST_TEMPLATE = template;
  process.env.SS_TEST_SERVER_URL = serverUrl;
}
