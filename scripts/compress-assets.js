#!/usr/bin/env node
// Writes .br and .gz beside every script and stylesheet of the studio page, at build time, so the
// studio serves them compressed (express-static-gzip) without compressing per request.
'use strict';
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const zlib = require('node:zlib');

// The production build by default; `node scripts/compress-assets.js dist/apps/studio-web-test`
// for the test build, served by the browser tests as production is served.
const dir = process.argv[2] ? join(resolve(process.argv[2]), 'assets') : join(__dirname, '..', 'dist', 'apps', 'studio-web', 'assets');
for (const name of readdirSync(dir).filter((n) => /\.(js|css|svg|json)$/.test(n))) {
  const bytes = readFileSync(join(dir, name));
  writeFileSync(join(dir, `${name}.br`), zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(join(dir, `${name}.gz`), zlib.gzipSync(bytes, { level: 9 }));
}
