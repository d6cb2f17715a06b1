import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';

/**
 * The service and e2e tiers' jest runtime (test/jest/shared-modules-runtime.js with the shared
 * vm context of test/jest/file-environment.js): a package is evaluated once per jest worker, the
 * files' own modules once per file, in one realm, and a package's lazy require after the file
 * that loaded it ended still works. Checked on two fixture files run by a real jest in one worker.
 */
describe('the test runtime shares packages between the files of a worker', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ss-test-runtime-'));
    const pkg = writePackage('fixture-package', [
      'globalThis.packageEvaluations = (globalThis.packageEvaluations || 0) + 1;',
      'exports.evaluations = () => globalThis.packageEvaluations;',
      "exports.makeError = () => new Error('from the package');",
      'exports.lazy = (name) => require(`./${name}`);',
    ]);
    for (const name of ['lazy-a', 'lazy-b']) writeFileSync(join(pkg, `${name}.js`), `exports.name = '${name}';`);
    // A stand-in under the name of a package the runtime evaluates per file (process-wide state).
    writePackage('nestjs-pino', [
      'globalThis.perFileEvaluations = (globalThis.perFileEvaluations || 0) + 1;',
      'exports.count = () => globalThis.perFileEvaluations;',
    ]);
    writeFileSync(
      join(dir, 'own.js'),
      'globalThis.ownEvaluations = (globalThis.ownEvaluations || 0) + 1;\nexports.count = () => globalThis.ownEvaluations;',
    );
    for (const name of ['a', 'b']) {
      writeFileSync(
        join(dir, `${name}.test.js`),
        [
          "const pkg = require('fixture-package');",
          "const own = require('./own');",
          "const perFile = require('nestjs-pino');",
          "const { appendFileSync } = require('node:fs');",
          `test('${name}', () => {`,
          '  const spiedBefore = pkg.makeError.mock !== undefined;',
          // Left in place on purpose: the file's teardown must restore it before the other file.
          "  jest.spyOn(pkg, 'makeError');",
          `  const lazy = pkg.lazy('lazy-${name}').name;`,
          '  const error = pkg.makeError();',
          `  appendFileSync(${JSON.stringify(join(dir, 'results.jsonl'))}, JSON.stringify({ file: '${name}', packageEvaluations: pkg.evaluations(), ownEvaluations: own.count(), perFileEvaluations: perFile.count(), errorIsError: error instanceof Error, lazy, spiedBefore, handlers: globalThis[Symbol.for('EVENT_HANDLERS')].length }) + '\\n');`,
          '});',
        ].join('\n'),
      );
    }
    writeFileSync(
      join(dir, 'jest.config.js'),
      `module.exports = ${JSON.stringify({
        rootDir: dir,
        testMatch: ['<rootDir>/*.test.js'],
        transform: {},
        testEnvironment: join(ROOT, 'test/jest/file-environment.js'),
        runtime: join(ROOT, 'test/jest/shared-modules-runtime.js'),
        cache: false,
      })};`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A package in the fixture's node_modules; returns its directory. */
  function writePackage(name: string, lines: string[]): string {
    const pkg = join(dir, 'node_modules', name);
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), lines.join('\n'));
    return pkg;
  }

  async function runFixture(env: Record<string, string> = {}) {
    rmSync(join(dir, 'results.jsonl'), { force: true });
    const jest = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const out = await run(process.execPath, [jest, '--config', join(dir, 'jest.config.js'), '--runInBand', '--ci'], {
      cwd: dir,
      env: { ...process.env, SS_TEST_RUN_ID: '', SS_TEST_ISOLATE_PACKAGES: '', ...env },
    });
    expect(out.code).toBe(0);
    return readFileSync(join(dir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('evaluates a package once and the files’ own modules per file, in one realm; lazy requires and spies behave', async () => {
    const results = await runFixture();
    expect(results).toHaveLength(2);
    const [first, second] = results;
    expect([first.packageEvaluations, second.packageEvaluations]).toEqual([1, 1]);
    expect([first.ownEvaluations, second.ownEvaluations]).toEqual([1, 2]);
    expect([first.perFileEvaluations, second.perFileEvaluations]).toEqual([1, 2]);
    for (const r of results) {
      expect(r.errorIsError).toBe(true);
      // The first file's spy was restored when it ended.
      expect(r.spiedBefore).toBe(false);
    }
    // jest-circus's event handlers are the file's own: the first file's are gone.
    expect(second.handlers).toBe(first.handlers);
    // The second file's lazy require went through a package loaded by the first file's runtime.
    expect(results.map((r) => r.lazy).sort()).toEqual(['lazy-a', 'lazy-b']);
  }, 60_000);

  it('SS_TEST_ISOLATE_PACKAGES=1 gives every file its own packages, as jest does by default', async () => {
    const results = await runFixture({ SS_TEST_ISOLATE_PACKAGES: '1' });
    expect(results.map((r) => [r.packageEvaluations, r.ownEvaluations])).toEqual([
      [1, 1],
      [1, 1],
    ]);
  }, 60_000);
});
