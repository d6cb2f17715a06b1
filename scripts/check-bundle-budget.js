#!/usr/bin/env node
// The studio page loads inside partners' pages, often on slow connections: its JavaScript and
// CSS (our code and every library) must stay under a gzipped budget. Run after `vite build`.
'use strict';
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const { gzipSync } = require('node:zlib');

const BUDGET_BYTES = 300 * 1024;
// Spark, the Gaussian-splat renderer, is its own chunk (apps/studio-web/src/viewport/splat-layer.ts,
// imported only when a version has a splat), so scenes without splats never download it and it
// stays out of BUDGET_BYTES. It has a budget of its own: measured at 856 KB gzipped with Spark 2.2.0
// (most of it the renderer's WebAssembly, inlined as base64 twice: once for the page, once in its
// sorting worker's source). The margin absorbs a minor Spark update, not a second library.
const SPLAT_CHUNK = /^splat-layer-[\w-]+\.js$/;
const SPLAT_BUDGET_BYTES = 900 * 1024;
// The video encoder and muxer (mediabunny, apps/studio-web/src/render/media-encoding.ts) is a
// chunk of its own too: fetched when a take starts or the Render section comes into view, never
// on load. Measured at 75.4 KB gzipped with mediabunny 1.61.0 (MP4 and WebM muxing, the WebM
// reader for remuxing takes, WebCodecs glue); the margin covers a minor update, not a second
// library. Kept out of BUDGET_BYTES so the page-load budget stays the page load's.
const MEDIA_CHUNK = /^media-encoding-[\w-]+\.js$/;
const MEDIA_BUDGET_BYTES = 90 * 1024;
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

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const rows = files
  .map((file) => {
    const bytes = readFileSync(file);
    return { file: relative(assets, file), raw: bytes.length, gzip: gzipSync(bytes).length };
  })
  .sort((a, b) => b.gzip - a.gzip);

const splatRows = rows.filter((r) => SPLAT_CHUNK.test(r.file));
const mediaRows = rows.filter((r) => MEDIA_CHUNK.test(r.file));
const total = rows.filter((r) => !SPLAT_CHUNK.test(r.file) && !MEDIA_CHUNK.test(r.file)).reduce((sum, r) => sum + r.gzip, 0);
const splatTotal = splatRows.reduce((sum, r) => sum + r.gzip, 0);
const mediaTotal = mediaRows.reduce((sum, r) => sum + r.gzip, 0);
const width = Math.max(...rows.map((r) => r.file.length), 5);
console.log(`${'file'.padEnd(width)}  ${'raw'.padStart(10)}  ${'gzip'.padStart(10)}`);
for (const r of rows) console.log(`${r.file.padEnd(width)}  ${kb(r.raw).padStart(10)}  ${kb(r.gzip).padStart(10)}`);
console.log(
  `${'total'.padEnd(width)}  ${''.padStart(10)}  ${kb(total).padStart(10)}  (budget ${kb(BUDGET_BYTES)}, without the splat and media chunks)`,
);
console.log(
  `${'splat chunk'.padEnd(width)}  ${''.padStart(10)}  ${kb(splatTotal).padStart(10)}  (budget ${kb(SPLAT_BUDGET_BYTES)}, loaded only for splat worlds)`,
);

console.log(
  `${'media chunk'.padEnd(width)}  ${''.padStart(10)}  ${kb(mediaTotal).padStart(10)}  (budget ${kb(MEDIA_BUDGET_BYTES)}, loaded for takes and renders)`,
);

if (mediaRows.length > 1) {
  console.error('check-bundle-budget: more than one media-encoding chunk; the lazy split is broken.');
  process.exit(1);
}
if (mediaTotal > MEDIA_BUDGET_BYTES) {
  console.error(
    `check-bundle-budget: the media chunk is ${kb(mediaTotal - MEDIA_BUDGET_BYTES)} over its ${kb(MEDIA_BUDGET_BYTES)} gzipped budget.`,
  );
  process.exit(1);
}
if (splatRows.length > 1) {
  console.error('check-bundle-budget: more than one splat-layer chunk; the lazy split is broken.');
  process.exit(1);
}
if (splatTotal > SPLAT_BUDGET_BYTES) {
  console.error(
    `check-bundle-budget: the splat chunk is ${kb(splatTotal - SPLAT_BUDGET_BYTES)} over its ${kb(SPLAT_BUDGET_BYTES)} gzipped budget.`,
  );
  process.exit(1);
}

if (total > BUDGET_BYTES) {
  console.error(`check-bundle-budget: the studio bundle is ${kb(total - BUDGET_BYTES)} over its ${kb(BUDGET_BYTES)} gzipped budget.`);
  process.exit(1);
}
