import { ensureDatabase, loadConfig, runMigrations } from '@app/core';
import { MIGRATIONS } from './migrations';
import { Json, printResult } from './output';

/** No application context: migrating needs a connection and the list of migrations, nothing else. */
export async function migrate(o: Json & { createDatabase?: boolean }): Promise<void> {
  const config = loadConfig();
  const created = o.createDatabase ? await ensureDatabase(config) : false;
  const applied = await runMigrations(config, MIGRATIONS);
  await printResult(
    !!o.json,
    { ...(o.createDatabase ? { createdDatabase: created } : {}), applied },
    [
      ...(created ? ['Created the database.'] : []),
      applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}` : 'Database is up to date.',
    ].join('\n'),
  );
}
