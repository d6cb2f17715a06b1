'use strict';
// node scripts/check-table-ownership.js — part of `npm run lint`.
//
// No lib reads or writes another lib's tables: SQL in a lib names only its own tables and the
// read models (views) published by the libs it may import, and a lib touches no other lib's
// TypeORM entity; the few exceptions are reads (FROM, JOIN) listed in READS. Apps reach tables
// only through libs. The owners, the chain and the reads are in scripts/architecture.cjs;
// migrations (the schema's history) are exempt.
// SQL is recognised by the keywords that introduce a table (FROM, JOIN, UPDATE, INTO, TABLE);
// catalog tables (pg_*) are ignored. A lib's public modules export no repository.

const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { LIB_DEPENDENCIES, TABLES, READS } = require('./architecture.cjs');

const ROOT = join(__dirname, '..');
const TABLE_REF = /\b(FROM|JOIN|UPDATE|INTO|TABLE)\s+([a-z_][a-z0-9_]*)/g;
const ENTITY = /@Entity\('([a-z_]+)'\)\s*export class (\w+)/g;
/** A common table expression's name (`WITH due AS (`, `, claimed AS (`): a query's own, not a table. */
const CTE_NAME = /(?:\bWITH|,)\s+([a-z_][a-z0-9_]*)\s+AS\s*\(/g;
const cteNames = (text) => new Set([...text.matchAll(CTE_NAME)].map((m) => m[1]));

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'migrations' && entry.name !== 'node_modules') out.push(...sources(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

const owner = new Map();
for (const [lib, { own, published }] of Object.entries(TABLES)) for (const t of [...own, ...published]) owner.set(t, lib);

const files = [];
for (const kind of ['libs', 'apps']) {
  for (const name of readdirSync(join(ROOT, kind))) {
    let src = join(ROOT, kind, name, 'src');
    try {
      readdirSync(src);
    } catch {
      continue;
    }
    for (const file of sources(src)) files.push({ kind, name, file, text: readFileSync(file, 'utf8') });
  }
}

// Entity classes and their tables, from the @Entity decorators.
const entityOwner = new Map();
for (const f of files) {
  for (const m of f.text.matchAll(ENTITY)) {
    if (f.kind !== 'libs' || owner.get(m[1]) !== f.name) {
      console.error(`${relative(ROOT, f.file)}: entity of table ${m[1]} outside its owning lib (scripts/architecture.cjs)`);
      process.exitCode = 1;
    }
    entityOwner.set(m[2], m[1]);
  }
}

const problems = [];
for (const f of files) {
  const where = relative(ROOT, f.file);
  const readable = (table) => {
    if (f.kind === 'apps') return false;
    const lib = owner.get(table);
    if (lib === f.name) return true;
    return TABLES[lib].published.includes(table) && LIB_DEPENDENCIES[f.name].includes(lib);
  };
  const readOnly = (table) => f.kind === 'libs' && (READS[f.name] ?? []).includes(table);
  for (const m of f.text.matchAll(TABLE_REF)) {
    const [, keyword, table] = m;
    if (table.startsWith('pg_') || !owner.has(table)) continue;
    if (readable(table) || (readOnly(table) && (keyword === 'FROM' || keyword === 'JOIN'))) continue;
    problems.push(`${where}: SQL on ${table}, a table of ${owner.get(table)}`);
  }
  for (const [entity, table] of entityOwner) {
    if (
      new RegExp(`\\b${entity}\\b`).test(f.text) &&
      !readable(table) &&
      !readOnly(table) &&
      !(f.kind === 'libs' && owner.get(table) === f.name)
    ) {
      problems.push(`${where}: uses ${entity}, the entity of ${table} (a table of ${owner.get(table)})`);
    }
  }
}
// A table in the SQL that nobody owns would escape the check: name its owner first.
for (const f of files) {
  const ctes = cteNames(f.text);
  for (const m of f.text.matchAll(TABLE_REF)) {
    const t = m[2];
    if (!t.startsWith('pg_') && !owner.has(t) && !ctes.has(t)) {
      problems.push(`${relative(ROOT, f.file)}: table ${t} has no owner in scripts/architecture.cjs`);
    }
  }
}
// A lib's public modules (those its index.ts exports) hand out no repository, not even through an
// imported module they re-export: another lib asks a service, so only the owner touches its tables.
for (const lib of Object.keys(TABLES)) {
  const src = join(ROOT, 'libs', lib, 'src');
  let index;
  try {
    index = readFileSync(join(src, 'index.ts'), 'utf8');
  } catch {
    continue;
  }
  for (const m of index.matchAll(/export \* from '\.\/([\w.-]+\.module)'/g)) {
    const text = readFileSync(join(src, `${m[1]}.ts`), 'utf8');
    for (const e of text.matchAll(/exports:\s*\[([^\]]*)\]/g)) {
      for (const name of e[1].match(/\w+(Repository|DataModule)\b/g) ?? []) {
        problems.push(`libs/${lib}/src/${m[1]}.ts: exports ${name}; other libs must ask a service instead`);
      }
    }
  }
}
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`\n${problems.length} table-ownership problem(s): go through the owning lib's repository or a read model it publishes.`);
  process.exitCode = 1;
}
