#!/usr/bin/env node
'use strict';
/**
 * `npm run client:generate` (after the TypeScript types): refreshes
 * packages/client-python/scene_studio/_types.py from the api's OpenAPI document, built from the
 * compiled api exactly as the TypeScript types are (`scripts/generate-client-types.js
 * --document`, in a process of its own). The drift test checks that this equals what a running
 * api's /v1/openapi.json renders to. `--print` writes the types to stdout instead.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { PYTHON_TYPES_PATH, renderPythonTypes } = require('./python-client-types');

try {
  const document = execFileSync(process.execPath, [join(__dirname, 'generate-client-types.js'), '--document'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const types = renderPythonTypes(JSON.parse(document));
  if (process.argv.includes('--print')) {
    process.stdout.write(types);
  } else {
    const before = existsSync(PYTHON_TYPES_PATH) ? readFileSync(PYTHON_TYPES_PATH, 'utf8') : '';
    writeFileSync(PYTHON_TYPES_PATH, types);
    process.stdout.write(`${before === types ? 'unchanged' : 'updated'}: ${PYTHON_TYPES_PATH}\n`);
  }
} catch (e) {
  process.stderr.write(`python client types failed: ${e.message}\n`);
  process.exit(1);
}
