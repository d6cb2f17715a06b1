import { MigrationInterface } from 'typeorm';

export type MigrationConstructor = new () => MigrationInterface;

/** `<VerbNoun><timestamp>`, as `npm run migration:create` names a migration class. */
const CLASS_NAME = /^[A-Za-z]+(\d{13})$/;

/**
 * One list of every lib's migrations, in timestamp order: the order TypeORM applies them in and
 * records them under. Refuses a class name without its timestamp or one listed twice, which
 * would otherwise surface as a migration silently skipped or run twice on some database.
 */
export function assembleMigrations(...lists: MigrationConstructor[][]): MigrationConstructor[] {
  const all = lists.flat();
  const seen = new Set<string>();
  for (const m of all) {
    if (!CLASS_NAME.test(m.name)) throw new Error(`migration class ${m.name} does not end in its 13-digit timestamp`);
    if (seen.has(m.name)) throw new Error(`migration ${m.name} is listed twice`);
    seen.add(m.name);
  }
  const timestamp = (m: MigrationConstructor) => Number(CLASS_NAME.exec(m.name)![1]);
  return [...all].sort((a, b) => timestamp(a) - timestamp(b));
}
