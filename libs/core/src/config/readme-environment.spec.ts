import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredConfigSlices } from './config-slice';
import { ENV_DEFAULTS } from './config.schema';

const ROOT = join(__dirname, '../../../..');

/**
 * Every variable a process may read: core's, and those of each lib's or app's slice (`<name>.config.ts`).
 * Core imports no lib, so the slices are loaded here by file, as each process's imports load them.
 */
function allDefaults(): Record<string, string | undefined> {
  // The libs' slices, and an app's own (a setting only that process reads, e.g. the studio's limits).
  for (const root of ['libs', 'apps']) {
    for (const name of readdirSync(join(ROOT, root))) {
      const src = join(ROOT, root, name, 'src');
      if (!existsSync(src)) continue;
      for (const file of readdirSync(src)) if (file.endsWith('.config.ts')) require(join(src, file));
    }
  }
  return Object.assign({}, ENV_DEFAULTS, ...declaredConfigSlices().map((s) => s.defaults));
}

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
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
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
  const defaults = allDefaults();
  const schema = Object.keys(defaults);

  it('has a row for every variable the schema reads, and no other', () => {
    expect(documented.filter((n) => !schema.includes(n))).toEqual([]);
    expect(schema.filter((n) => !documented.includes(n))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("shows the schema's default for every variable it gives a value for", () => {
    const wrong: string[] = [];
    for (const row of rows) {
      // A default cell that does not split like the names is prose for the whole row.
      const cells = row.defaults.length === row.names.length ? row.defaults : row.names.map(() => row.defaults.join(' / '));
      row.names.forEach((name, i) => {
        const expected = defaults[name];
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
