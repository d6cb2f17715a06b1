'use strict';
// The repositories and the checked-in files holding the SQL they run (docs/architecture.md,
// "Every statement reviewable"). Shared by `scripts/check-repository-queries.js` (npm run lint:
// every public method has its entry) and test/service/repository-queries.service-spec.ts (which
// runs every method and writes or compares the statements).
//
// A repository is a class, in a `*.repository.ts` file of a lib or one of core's blob stores (the
// files ESLint lets open a transaction), whose constructor takes the `DataSource`. Its public
// methods are the ones a caller can reach: not `private`/`protected`, not the constructor, not
// accessors. Read with the TypeScript parser, so a comment or a string cannot fool it.

const { readdirSync, readFileSync } = require('node:fs');
const { basename, join, relative } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');
const BLOB_STORES = ['libs/core/src/blob-store/postgres-blob-store.ts', 'libs/core/src/blob-store/blob-ledger.ts'];

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith('.repository.ts')) out.push(relative(ROOT, path).split('\\').join('/'));
  }
  return out;
}

/** Every repository source file, relative to the root, sorted. */
function repositoryFiles() {
  const files = [...BLOB_STORES];
  for (const lib of readdirSync(join(ROOT, 'libs'))) walk(join(ROOT, 'libs', lib, 'src'), files);
  return files.sort();
}

const hidden = (node) =>
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) ||
  (node.name && ts.isPrivateIdentifier(node.name));

/** The repository classes of one file: `{ name, methods }`, methods in source order. */
function repositoriesIn(file) {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const found = [];
  for (const node of source.statements) {
    if (!ts.isClassDeclaration(node) || !node.name) continue;
    const ctor = node.members.find(ts.isConstructorDeclaration);
    const takesDataSource = ctor?.parameters.some((p) => p.type && p.type.getText(source) === 'DataSource');
    if (!takesDataSource) continue;
    const methods = [];
    for (const m of node.members) {
      if (!ts.isMethodDeclaration(m) || hidden(m)) continue;
      if ((ts.getModifiers(m) ?? []).some((x) => x.kind === ts.SyntaxKind.StaticKeyword)) continue;
      const name = m.name.getText(source);
      if (!methods.includes(name)) methods.push(name);
    }
    found.push({ name: node.name.text, methods });
  }
  return found;
}

/** Where a repository file's statements are written: `libs/<lib>/src/queries/<file>.sql`. */
function queriesFileOf(file) {
  const lib = file.split('/')[1];
  return `libs/${lib}/src/queries/${basename(file, '.ts')}.sql`;
}

/** Every repository: `{ file, queries, name, methods }`. */
function repositories() {
  return repositoryFiles().flatMap((file) => repositoriesIn(file).map((r) => ({ file, queries: queriesFileOf(file), ...r })));
}

/** The entry headers of a queries file, in order: `Class.method`. */
const HEADER = /^-- ([A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*)$/gm;
function entriesOf(text) {
  return [...text.matchAll(HEADER)].map((m) => m[1]);
}

/** Every `.sql` file under a lib's `src/queries/`, relative to the root. */
function queriesFiles() {
  const out = [];
  for (const lib of readdirSync(join(ROOT, 'libs'))) {
    const dir = join(ROOT, 'libs', lib, 'src', 'queries');
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) if (n.endsWith('.sql')) out.push(`libs/${lib}/src/queries/${n}`);
  }
  return out.sort();
}

/**
 * The statements of one entry (`Class.method`) of a queries file, as the repository sends them
 * (without the closing `;`), for a check or a bench that must run exactly the repository's SQL.
 * Throws when the file has no such entry.
 */
function statementsOf(queriesFile, entry) {
  const lines = readFileSync(join(ROOT, queriesFile), 'utf8').split('\n');
  const start = lines.indexOf(`-- ${entry}`);
  if (start < 0) throw new Error(`${queriesFile} has no entry ${entry}`);
  const statements = [];
  let current = [];
  for (const line of lines.slice(start + 1)) {
    if (line === '') break;
    current.push(line);
    if (line.endsWith(';')) {
      statements.push(current.join('\n').slice(0, -1));
      current = [];
    }
  }
  return statements;
}

module.exports = { ROOT, repositories, queriesFileOf, entriesOf, queriesFiles, statementsOf };
