import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_DEFAULTS, EnvName } from './config.schema';

/**
 * The README's "Environment" table is what operators read; the schema is what the processes
 * obey. This keeps them one: every variable the schema reads has a row, every row names a
 * variable the schema reads, and each default the table shows as a value is the schema's.
 * Rows may group variables (`A` / `B`) with their defaults in the same order.
 */
interface Row {
  names: string[];
  defaults: string[];
}

function environmentTable(): Row[] {
  const readme = readFileSync(join(__dirname, '../../../../README.md'), 'utf8');
  const section = readme.split('\n## Environment\n')[1].split('\n## ')[0];
  // The first table only: the second lists the local scripts' variables, which the services never read.
  const table = section.split('\n\n').find((block) => block.startsWith('| Variable |'))!;
  return table
    .split('\n')
    .slice(2)
    .map((line) => {
      // `| names | meaning | defaults |`
      const [names, , defaults] = line.slice(2, -2).split(' | ');
      return {
        names: names.split(' / ').map((n) => n.replace(/`/g, '').trim()),
        defaults: defaults.split(' / ').map((d) => d.trim()),
      };
    });
}

describe('README environment table', () => {
  const rows = environmentTable();
  const documented = rows.flatMap((r) => r.names);
  const schema = Object.keys(ENV_DEFAULTS) as EnvName[];

  it('has a row for every variable the schema reads, and no other', () => {
    expect(documented.filter((n) => !schema.includes(n as EnvName))).toEqual([]);
    expect(schema.filter((n) => !documented.includes(n))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("shows the schema's default for every variable it gives a value for", () => {
    const wrong: string[] = [];
    for (const row of rows) {
      // A default cell that does not split like the names is prose for the whole row.
      const cells = row.defaults.length === row.names.length ? row.defaults : row.names.map(() => row.defaults.join(' / '));
      row.names.forEach((name, i) => {
        const expected = ENV_DEFAULTS[name as EnvName];
        const shown = /^`([^`]*)`/.exec(cells[i])?.[1];
        // A literal value shown must be the default; no literal (—, "no limit", prose) means none is set.
        if (shown !== expected) {
          wrong.push(`${name}: README ${cells[i]}, schema ${expected ?? 'unset'}`);
        }
      });
    }
    expect(wrong).toEqual([]);
  });
});
