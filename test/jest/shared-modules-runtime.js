// The jest runtime of the service and e2e tiers: jest's own, except that a package from
// node_modules is evaluated once per jest worker instead of once per test file.
//
// Jest gives every test file a fresh module registry, so every file loaded the whole of NestJS,
// TypeORM, BullMQ, class-validator, rxjs… again: about 2 100 modules and 1.2 s of CPU per file in
// a warm worker, for 110 files, on a suite that is CPU-bound on two cores (docs/testing.md,
// "Running in parallel"). Most packages keep no state a test relies on being fresh (every file
// already starts several apps on the same package instances), so a worker now keeps them, except
// those listed in PER_FILE_PACKAGES below; the files' own code (apps, libs, test support) is
// still evaluated per file, so each file still gets its own classes, configuration and state.
//
// Packages and the files' code must live in one JavaScript realm (the same `Object`, `Error`,
// `Promise`, `Reflect`), so the file environment (test/jest/file-environment.js) hands every
// file of a worker the same vm context. A package that requires another lazily (TypeORM loads its
// driver when a connection opens) may do so after the file that first loaded it has ended: such
// a require goes to the runtime of the file running now.
'use strict';
const Runtime = require('jest-runtime').default;

const { sep } = require('node:path');

const NODE_MODULES = `${sep}node_modules${sep}`;

/**
 * Packages still evaluated per file: they keep state for the whole process that a file's tests
 * rely on starting fresh. nestjs-pino writes every out-of-request log line of a process through
 * the first root logger it was given: kept, a worker's later files would log through an earlier
 * file's (closed, silent) app, and their log captures would stay empty.
 */
const PER_FILE_PACKAGES = ['nestjs-pino'].map((name) => `${NODE_MODULES}${name}${sep}`);

/** The packages' modules a worker has evaluated, by resolved path, for the shared vm context. */
const shared = { context: null, modules: new Map(), current: null };

class SharedModulesRuntime extends Runtime {
  constructor(config, environment, ...rest) {
    super(config, environment, ...rest);
    this.sharesModules = environment.sharesContext === true;
    if (this.sharesModules) {
      const context = environment.getVmContext();
      if (shared.context !== context) {
        shared.context = context;
        shared.modules = new Map();
      }
      shared.current = this;
    }
  }

  requireModule(from, moduleName, options, isRequireActual = false) {
    if (!this.sharesModules || !moduleName || options?.isInternalModule || this._resolution.isCoreModule(moduleName)) {
      return super.requireModule(from, moduleName, options, isRequireActual);
    }
    let modulePath;
    try {
      modulePath = this._resolution.resolveCjs(from, moduleName);
    } catch {
      return super.requireModule(from, moduleName, options, isRequireActual);
    }
    if (!modulePath.includes(NODE_MODULES) || PER_FILE_PACKAGES.some((dir) => modulePath.includes(dir))) {
      return super.requireModule(from, moduleName, options, isRequireActual);
    }
    const known = shared.modules.get(modulePath);
    if (known) return known.exports;
    const exports = super.requireModule(from, moduleName, options, isRequireActual);
    const module = this.registries.getActiveCjsRegistry().get(modulePath);
    if (module) shared.modules.set(modulePath, module);
    return exports;
  }

  requireModuleOrMock(from, moduleName) {
    // A package's lazy require after its first file ended: the file running now serves it.
    if (this.sharesModules && this.testState.isTornDown() && shared.current && shared.current !== this) {
      return shared.current.requireModuleOrMock(from, moduleName);
    }
    return super.requireModuleOrMock(from, moduleName);
  }

  teardown() {
    super.teardown();
    if (shared.current === this) shared.current = null;
  }
}

module.exports = SharedModulesRuntime;
