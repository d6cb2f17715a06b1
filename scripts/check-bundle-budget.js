#!/usr/bin/env node
// The studio page loads inside partners' pages, often on slow connections: its JavaScript and
// CSS (our code and every library) must stay under a gzipped budget. Run after `vite build`.
// It also checks that the production bundle holds none of the tests' hooks (`window.__studio`, the
// pixel read-back: apps/studio-web/src/debug, installed by test builds only).
'use strict';
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const { gzipSync } = require('node:zlib');
const { LAZY_CHUNKS, isLazyChunk } = require('./lazy-chunks');

// The splat and media chunks (scripts/lazy-chunks.js) have budgets of their own.
const BUDGET_BYTES = 300 * 1024;
const root = join(__dirname, '..');
const assets = join(root, 'dist/apps/studio-web/assets');

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

let files;
try {
  files = listFiles(assets).filter((f) => /\.(m?js|css)$/.test(f));
} catch {
  console.error(`check-bundle-budget: ${relative(root, assets)} not found; run the studio build first.`);
  process.exit(1);
}
if (files.length === 0) {
  console.error('check-bundle-budget: no JS or CSS files in the studio bundle.');
  process.exit(1);
}

// Names only the test hooks use: the property they install on window and the read-back they offer.
const TEST_HOOK_MARKERS = ['__studio', 'canvasStats'];
for (const file of listFiles(assets).filter((f) => /\.(m?js|html)$/.test(f))) {
  const text = readFileSync(file, 'utf8');
  const found = TEST_HOOK_MARKERS.filter((marker) => text.includes(marker));
  if (found.length > 0) {
    console.error(
      `check-bundle-budget: ${relative(root, file)} holds the tests' hooks (${found.join(', ')}): ` +
        'they belong in the test build only (`vite build --mode test`).',
    );
    process.exit(1);
  }
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const rows = files
  .map((file) => {
    const bytes = readFileSync(file);
    return { file: relative(assets, file), raw: bytes.length, gzip: gzipSync(bytes).length };
  })
  .sort((a, b) => b.gzip - a.gzip);

const lazy = LAZY_CHUNKS.map((chunk) => {
  const matching = rows.filter((r) => chunk.file.test(r.file));
  return { ...chunk, count: matching.length, total: matching.reduce((sum, r) => sum + r.gzip, 0) };
});
const total = rows.filter((r) => !isLazyChunk(r.file)).reduce((sum, r) => sum + r.gzip, 0);
const width = Math.max(...rows.map((r) => r.file.length), 5);
console.log(`${'file'.padEnd(width)}  ${'raw'.padStart(10)}  ${'gzip'.padStart(10)}`);
for (const r of rows) console.log(`${r.file.padEnd(width)}  ${kb(r.raw).padStart(10)}  ${kb(r.gzip).padStart(10)}`);
console.log(
  `${'total'.padEnd(width)}  ${''.padStart(10)}  ${kb(total).padStart(10)}  (budget ${kb(BUDGET_BYTES)}, without the splat and media chunks)`,
);
for (const c of lazy) {
  console.log(`${`${c.name} chunk`.padEnd(width)}  ${''.padStart(10)}  ${kb(c.total).padStart(10)}  (budget ${kb(c.budget)}, ${c.when})`);
}

for (const c of lazy) {
  if (c.count > 1) {
    console.error(`check-bundle-budget: more than one ${c.name} chunk; the lazy split is broken.`);
    process.exit(1);
  }
  if (c.total > c.budget) {
    console.error(`check-bundle-budget: the ${c.name} chunk is ${kb(c.total - c.budget)} over its ${kb(c.budget)} gzipped budget.`);
    process.exit(1);
  }
}

if (total > BUDGET_BYTES) {
  console.error(`check-bundle-budget: the studio bundle is ${kb(total - BUDGET_BYTES)} over its ${kb(BUDGET_BYTES)} gzipped budget.`);
  process.exit(1);
}
