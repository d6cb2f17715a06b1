'use strict';
// node scripts/check-repository-queries.js — part of `npm run lint`.
//
// Every statement reviewable (docs/architecture.md): each repository file has its queries file
// (`libs/<lib>/src/queries/<file>.sql`), with one entry per public method of its repositories, in
// the code's order, and no queries file outlives its repository. This is the part a linter can
// see without a database: a method added, renamed or removed without `npm run queries:write`. The
// statements themselves are compared with what the code sends by
// test/service/repository-queries.service-spec.ts, which writes these files.

const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { ROOT, repositories, entriesOf, queriesFiles } = require('./repository-queries');

const problems = [];
const expected = new Map();
for (const r of repositories()) {
  const list = expected.get(r.queries) ?? { source: r.file, entries: [] };
  list.entries.push(...r.methods.map((m) => `${r.name}.${m}`));
  expected.set(r.queries, list);
}

for (const [queries, { source, entries }] of expected) {
  const path = join(ROOT, queries);
  if (!existsSync(path)) {
    problems.push(`${source}: no ${queries}`);
    continue;
  }
  const found = entriesOf(readFileSync(path, 'utf8'));
  if (found.join('\n') !== entries.join('\n')) {
    const missing = entries.filter((e) => !found.includes(e));
    const extra = found.filter((e) => !entries.includes(e));
    const what = [
      missing.length > 0 ? `missing ${missing.join(', ')}` : '',
      extra.length > 0 ? `no such method ${extra.join(', ')}` : '',
      missing.length === 0 && extra.length === 0 ? "entries not in the code's order" : '',
    ].filter(Boolean);
    problems.push(`${queries}: ${what.join('; ')}`);
  }
}
for (const file of queriesFiles()) if (!expected.has(file)) problems.push(`${file}: no repository writes it`);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(
    'The checked-in SQL does not match the repositories: run `npm run queries:write` and review the difference ' +
      '(docs/architecture.md, "Every statement reviewable").',
  );
  process.exit(1);
}
