import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config';
import { databaseOptions } from './database.options';

/**
 * Data source for the TypeORM command line (`npm run migration:generate -- <Name>`), which
 * needs the entities to diff the schema. The services never load it.
 */
export default new DataSource({
  ...databaseOptions(loadConfig(), 'typeorm-cli'),
  entities: [join(__dirname, '../../../*/src/**/*.entity.{js,ts}')],
});
