import { Client } from 'pg';

/** The same server as `url`, another database. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(serverUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const SAFE_NAME = /^[a-z0-9_]{1,63}$/;
function ident(name: string): string {
  if (!SAFE_NAME.test(name)) throw new Error(`unsafe database name ${name}`);
  return `"${name}"`;
}

export async function recreateDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${ident(name)}`);
  });
}

/** A copy of the migrated template: far faster than migrating each test file's database. */
export async function cloneDatabase(serverUrl: string, template: string, name: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${ident(name)} TEMPLATE ${ident(template)}`));
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
}

export async function dropDatabasesLike(serverUrl: string, prefix: string): Promise<void> {
  await admin(serverUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${prefix}%`]);
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${ident(r.datname)} WITH (FORCE)`);
  });
}
