import { DataSource } from 'typeorm';
import { loadConfig } from '../config';
import { databaseOptions } from './database.options';

/**
 * Data source for the TypeORM command line (`npm run migration:show`; `npx typeorm
 * migration:revert -d dist/libs/core/src/database/data-source.js`). Migrations are written by
 * hand in SQL (partial unique indexes, CHECK constraints and storage settings that entity
 * metadata cannot express), so the CLI only reads and applies them; `npm run migration:create
 * -- libs/core/src/database/migrations/<VerbNoun>` starts a new one.
 */
export default new DataSource({ ...databaseOptions(loadConfig(), 'typeorm-cli'), entities: [] });
