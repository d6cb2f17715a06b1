'use strict';
// node scripts/check-file-names.js — part of `npm run lint`.
//
// A file's name tells a reader what is in it, so two names in one folder must not differ only in
// their separators or a plural: `scene-jobs.ts` (a service) beside `scenes.jobs.ts` (the job
// declarations) made every reader open both. Names are compared word by word (split on `.`, `-`
// and `_`, a final `s` dropped), with the same extension. And a file declares at most one Nest
// module (`@Module(`), so `<x>.module.ts` names the module it holds. And our own code is imported
// under the names it exports (below).

const { readdirSync, readFileSync } = require('node:fs');
const { extname, join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const FOLDERS = ['apps', 'libs', 'packages', 'test', 'bench', 'scripts'];
const SKIP = new Set(['node_modules', 'dist', 'coverage', '.git']);
const SOURCE = new Set(['.ts', '.tsx', '.js', '.cjs', '.mjs', '.mts']);

/** `scenes.jobs.ts` and `scene-jobs.ts` both become `scene job` (with `.ts` kept apart). */
function key(name) {
  const ext = extname(name);
  const words = name
    .slice(0, name.length - ext.length)
    .toLowerCase()
    .split(/[.\-_]+/)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  return `${words.join(' ')}${ext}`;
}

/**
 * Our own code (a lib, an app, a workspace package or a relative path) is imported under the name
 * it was exported with: an alias (`import { IdempotencyKey as Key }`) means two things of ours
 * share a name, which every reader then has to tell apart. Other packages' names may be aliased
 * (`parse as parseContentType`). Specs may alias for brevity.
 */
const IMPORT = /^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm;
const OWN_CODE = /^(@app\/|@apps\/|@scene-studio\/|\.)/;
const RENAMED = /(?:^|,)\s*(?:type\s+)?([A-Za-z_$][\w$]*)\s+as\s+([A-Za-z_$][\w$]*)/g;

const problems = [];

function visit(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const seen = new Map();
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      visit(path);
      continue;
    }
    if (!SOURCE.has(extname(entry.name))) continue;
    const k = key(entry.name);
    const other = seen.get(k);
    if (other) problems.push(`${relative(ROOT, dir)}: ${other} and ${entry.name} differ only in separators or a plural; rename one`);
    else seen.set(k, entry.name);
    if (/\.tsx?$/.test(entry.name)) {
      const text = readFileSync(path, 'utf8');
      const modules = (text.match(/^@Module\(/gm) ?? []).length;
      if (modules > 1) problems.push(`${relative(ROOT, path)}: ${modules} Nest modules in one file; give each its own <x>.module.ts`);
      if (!/\.spec\.ts$|-spec\.ts$/.test(entry.name)) {
        for (const [, names, from] of text.matchAll(IMPORT)) {
          if (!OWN_CODE.test(from)) continue;
          for (const m of names.matchAll(RENAMED)) {
            problems.push(
              `${relative(ROOT, path)}: imports ${m[1]} from ${from} as ${m[2]}; two of our things share the name ${m[1]}: rename one where it is declared`,
            );
          }
        }
      }
    }
  }
}

for (const folder of FOLDERS) visit(join(ROOT, folder));
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`\n${problems.length} file-name problem(s).`);
  process.exitCode = 1;
}
