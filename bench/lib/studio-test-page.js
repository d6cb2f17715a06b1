'use strict';
// node bench/lib/studio-test-page.js <dist> <page dir>: the compiled studio process, serving the
// studio page's test build (dist/apps/studio-web-test), whose hooks (`window.__studio`) the studio
// bench reads its figures from; the production build has none. Same boot as dist's main.js.
require('reflect-metadata');
const { resolve } = require('node:path');

const [dist, pageDir] = process.argv.slice(2);
const { exitOnBootFailure } = require(resolve(dist, 'libs/core/src/index.js'));
const { startStudio } = require(resolve(dist, 'apps/studio/src/studio.server.js'));
startStudio({ webBundleDir: resolve(pageDir) }).catch((e) => exitOnBootFailure('studio', e));
