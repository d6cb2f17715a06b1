#!/usr/bin/env node
'use strict';
/**
 * `npm run studio-api:generate`: refreshes apps/studio-web/src/api/generated/studio-api.ts, the
 * studio page's types of the studio API, from the studio's OpenAPI document
 * (apps/studio/src/openapi/studio-openapi.ts), built from the compiled studio (dist, which the npm
 * script builds first). The drift test (test/studio/studio-api-types.e2e-spec.ts) checks that this
 * equals what the studio's sources render. `--print` writes the types to stdout; `--document` the
 * OpenAPI document. The work is scripts/client-types.js' `generateTypes`.
 */
require('./client-types').generateTypes('studio');
