#!/usr/bin/env node
'use strict';
/**
 * `npm run client:generate`: refreshes packages/client/src/generated/openapi.ts from the api's
 * OpenAPI document, built from the compiled api (dist, which the npm script builds first). The
 * drift test checks that this equals what a running api serves at /v1/openapi.json. `--print`
 * writes the types to stdout instead. The work is scripts/client-types.js' `generateTypes`.
 */
require('./client-types').generateTypes('api');
