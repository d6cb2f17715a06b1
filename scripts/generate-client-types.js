#!/usr/bin/env node
'use strict';
/**
 * `npm run client:generate`: refreshes packages/client/src/generated/openapi.ts from the api's
 * OpenAPI document. The document is built from the compiled api (dist, which the npm script
 * builds first) in Nest's preview mode: the controllers' metadata without instantiating a
 * provider, so no database or Redis is needed. The drift test checks that this equals what a
 * running api serves at /v1/openapi.json. `--print` writes the types to stdout instead.
 */
const { writeFileSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { CLIENT_TYPES_PATH, renderClientTypes } = require('./client-types');

const DIST = join(__dirname, '..', 'dist', 'apps', 'api', 'src');

async function main() {
  if (!existsSync(join(DIST, 'api.module.js'))) throw new Error('dist/apps/api is missing: run `npm run build` first');
  const { NestFactory } = require('@nestjs/core');
  const { ApiModule } = require(join(DIST, 'api.module.js'));
  const { buildOpenApiDocument } = require(join(DIST, 'openapi', 'openapi.js'));
  const app = await NestFactory.create(ApiModule.forRoot({}), { preview: true, abortOnError: false, logger: false });
  try {
    const types = await renderClientTypes(buildOpenApiDocument(app));
    if (process.argv.includes('--print')) return void process.stdout.write(types);
    const before = existsSync(CLIENT_TYPES_PATH) ? readFileSync(CLIENT_TYPES_PATH, 'utf8') : '';
    writeFileSync(CLIENT_TYPES_PATH, types);
    process.stdout.write(`${before === types ? 'unchanged' : 'updated'}: ${CLIENT_TYPES_PATH}\n`);
  } finally {
    await app.close();
  }
}

main().catch((e) => {
  process.stderr.write(`client:generate failed: ${e.message}\n`);
  process.exit(1);
});
