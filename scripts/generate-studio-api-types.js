#!/usr/bin/env node
'use strict';
/**
 * `npm run studio-api:generate`: refreshes apps/studio-web/src/api/generated/studio-api.ts, the
 * studio page's types of the studio API, from the studio's OpenAPI document
 * (apps/studio/src/openapi/studio-openapi.ts). The document is built from the compiled studio
 * (dist, which the npm script builds first) in Nest's preview mode: no database or Redis. The
 * drift test (test/studio/studio-api-types.e2e-spec.ts) checks that this equals what the studio's
 * sources render. `--print` writes the types to stdout; `--document` the OpenAPI document.
 */
const { writeFileSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { STUDIO_API_TYPES_PATH, renderStudioApiTypes } = require('./client-types');

const DIST = join(__dirname, '..', 'dist', 'apps', 'studio', 'src');

async function main() {
  if (!existsSync(join(DIST, 'studio.module.js'))) throw new Error('dist/apps/studio is missing: run `npx nest build studio` first');
  const { NestFactory } = require('@nestjs/core');
  const { StudioModule } = require(join(DIST, 'studio.module.js'));
  const { buildStudioOpenApiDocument } = require(join(DIST, 'openapi', 'studio-openapi.js'));
  const app = await NestFactory.create(StudioModule.forRoot({}), { preview: true, abortOnError: false, logger: false });
  try {
    const document = buildStudioOpenApiDocument(app);
    if (process.argv.includes('--document')) return void process.stdout.write(JSON.stringify(document));
    const types = await renderStudioApiTypes(document);
    if (process.argv.includes('--print')) return void process.stdout.write(types);
    const before = existsSync(STUDIO_API_TYPES_PATH) ? readFileSync(STUDIO_API_TYPES_PATH, 'utf8') : '';
    writeFileSync(STUDIO_API_TYPES_PATH, types);
    process.stdout.write(`${before === types ? 'unchanged' : 'updated'}: ${STUDIO_API_TYPES_PATH}\n`);
  } finally {
    await app.close();
  }
}

main().catch((e) => {
  process.stderr.write(`studio-api:generate failed: ${e.message}\n`);
  process.exit(1);
});
