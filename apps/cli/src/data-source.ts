import { databaseOptions, loadConfig } from '@app/core';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from './migrations';

/**
 * Data source for the TypeORM command line (`npm run migration:show`; `npx typeorm
 * migration:revert -d dist/apps/cli/src/data-source.js`). Migrations are written by hand in SQL
 * (partial unique indexes, CHECK constraints and storage settings that entity metadata cannot
 * express), so the CLI only reads and applies them; `npm run migration:create --
 * libs/<lib>/src/migrations/<VerbNoun>` starts a new one (then list it in that folder's index.ts).
 */
export default new DataSource({ ...databaseOptions(loadConfig(), 'typeorm-cli'), migrations: MIGRATIONS, entities: [] });
