'use strict';
// node scripts/check-core-is-generic.js — part of `npm run lint`.
//
// Core holds mechanisms, never a domain's registry: each lib declares its own error codes
// (`<lib>.errors.ts`), jobs (`<lib>.jobs.ts`), id prefixes (`<lib>.ids.ts`) and migrations
// (`src/migrations/`), and the apps assemble them. This check fails when libs/core names one of
// them: a string literal in core's code equal to a lib's error code, job name or id prefix, or a
// migration class outside core's own. Core's tests and test helpers are exempt (they may
// exercise the mechanism with a domain's names); libs/core/src/config is not: the libs' settings
// live in their slices (`<lib>.config.ts`, issue 26), and the variables a slice declares core
// names nowhere, not even in a comment.

const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const LIBS = join(ROOT, 'libs');
const EXEMPT = [/\.spec\.ts$/, /\/testing\//];

function files(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...files(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// What the other libs declare: `Name = 'code'` in an errors enum, `declareJob…('name'`, `Name: 'prefix'`.
const declared = new Map();
const prefixes = new Map();
const variables = new Map();
const note = (name, what) => declared.set(name, what);
for (const lib of readdirSync(LIBS)) {
  if (lib === 'core') continue;
  for (const file of files(join(LIBS, lib, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.errors.ts')) for (const m of text.matchAll(/^\s+\w+ = '([a-z_]+)',$/gm)) note(m[1], `error code of ${lib}`);
    if (file.endsWith('.jobs.ts')) for (const m of text.matchAll(/declareJob(?:<[^>]*>)?\(\)\('([^']+)'/g)) note(m[1], `job of ${lib}`);
    if (file.endsWith('.config.ts')) {
      const defaults = /defaults: \{([^}]*)\}/.exec(text)?.[1] ?? '';
      for (const m of defaults.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) variables.set(m[1], `setting of ${lib}`);
    }
    if (file.endsWith('.ids.ts')) for (const m of text.matchAll(/^\s+\w+: '([a-z]+)',$/gm)) prefixes.set(m[1], `id prefix of ${lib}`);
  }
}

// An app's own slice (a setting only that process reads, e.g. the studio's limits) is no core setting either.
for (const app of readdirSync(join(ROOT, 'apps'))) {
  const src = join(ROOT, 'apps', app, 'src');
  if (!existsSync(src)) continue;
  for (const file of readdirSync(src).filter((f) => f.endsWith('.config.ts'))) {
    const defaults = /defaults: \{([^}]*)\}/.exec(readFileSync(join(src, file), 'utf8'))?.[1] ?? '';
    for (const m of defaults.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) variables.set(m[1], `setting of apps/${app}`);
  }
}

const problems = [];
for (const file of files(join(LIBS, 'core', 'src'))) {
  const where = relative(ROOT, file);
  if (/\.spec\.ts$|\/testing\//.test(where)) continue;
  // A lib's settings are read, validated and documented from its slice alone: core, its config
  // included, names none of them, not even in a comment.
  const raw = readFileSync(file, 'utf8');
  for (const [name, what] of variables) {
    if (new RegExp(`\\b${name}\\b`).test(raw)) problems.push(`${where}: names ${name}, a ${what}`);
  }
  if (EXEMPT.some((re) => re.test(where))) continue;
  // Code only: a comment may say which lib a mechanism serves.
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
  for (const m of text.matchAll(/(['"`])([a-z][a-z0-9_.-]*)\1/g)) {
    if (declared.has(m[2])) problems.push(`${where}: names '${m[2]}', the ${declared.get(m[2])}`);
  }
  // Prefixes are short words ('key', 'op'): what betrays one is an id, `<prefix>_…`.
  for (const m of text.matchAll(/['"`]([a-z]+)_[0-9A-Z]/g)) {
    if (prefixes.has(m[1])) problems.push(`${where}: makes an id with '${m[1]}_', the ${prefixes.get(m[1])}`);
  }
  if (/\/migrations\//.test(where) && !where.startsWith('libs/core/src/database/migrations/')) {
    problems.push(`${where}: a migration outside core's own folder`);
  }
}
if (declared.size === 0 || prefixes.size === 0) problems.push('found no declarations in the libs: has their layout changed?');
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s): core keeps mechanisms; declare the name in the lib that owns it.`);
  process.exitCode = 1;
}
