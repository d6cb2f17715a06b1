'use strict';
// Loads the test suite's fake providers (TypeScript, under test/support) into a bench, so the
// bench measures against the very servers the tests trust, not a second copy of them. TypeScript
// is compiled on the fly with swc (as jest does); `@app/<lib>` imports resolve to the compiled
// libraries in dist/, the code the measured processes run.

const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
let installed = false;

function install() {
  if (installed) return;
  installed = true;
  const { transformSync } = require('@swc/core');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, parent, ...rest) {
    const alias = /^@app\/([a-z-]+)(\/.*)?$/.exec(request);
    const target = alias ? join(ROOT, 'dist', 'libs', alias[1], 'src', alias[2] ?? '') : request;
    return resolve.call(this, target, parent, ...rest);
  };
  require.extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022', keepClassNames: true },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}

/** A module of test/support, e.g. `fakes/worldlabs-fake`. */
function requireTestSupport(path) {
  install();
  return require(join(ROOT, 'test', 'support', path));
}

module.exports = { requireTestSupport };
