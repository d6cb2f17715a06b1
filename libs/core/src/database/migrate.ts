import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config';
import { databaseOptions } from './database.options';
import { MigrationConstructor } from './migration-list';

/**
 * Runs pending migrations in one transaction each; returns the names applied. `migrations` is the
 * list assembled from every lib (apps/cli/src/migrations.ts).
 */
export async function runMigrations(config: AppConfig, migrations: MigrationConstructor[]): Promise<string[]> {
  const ds = new DataSource({ ...databaseOptions(config, 'migrate'), migrations, entities: [] });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/**
 * Creates the database named by DATABASE_URL when it does not exist yet (local development:
 * `npm start` on a fresh machine). Connects to the server's `postgres` database to do it.
 * Returns whether it was created.
 */
export async function ensureDatabase(config: AppConfig): Promise<boolean> {
  const url = new URL(config.database.url);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new Error('DATABASE_URL names a database that cannot be created automatically');
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await client.end();
  }
}
