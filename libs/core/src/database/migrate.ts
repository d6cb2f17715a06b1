import { DataSource } from 'typeorm';
import { AppConfig } from '../config';
import { databaseOptions } from './database.options';

/** Runs pending migrations in one transaction each; returns the names applied. */
export async function runMigrations(config: AppConfig): Promise<string[]> {
  const ds = new DataSource({ ...databaseOptions(config, 'migrate'), entities: [] });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
