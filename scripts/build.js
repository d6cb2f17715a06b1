#!/usr/bin/env node
// The build in its three parts, each skipped when its inputs have not changed since it last built.
//
//   npm run build                      builds every part and records what it built from
//   node scripts/build.js --if-changed builds only the parts whose inputs changed (what `npm start`,
//                                      `npm test` and the e2e suites' global set-up do)
//
// As a module (scripts/start.js; a test set-up may use it the same way):
//   const { build, staleParts, PARTS, hashInputs } = require('./build');
//   await build({ onlyChanged: true, log, signal })  -> { built: ['studio'], skipped: ['server', 'client'] }
//   staleParts()                                    -> the parts a build would run now, with the reason
//   hashInputs(['libs', 'package-lock.json'])       -> hex SHA-256 of those files' paths and contents
//     (options: { root, skip(relativePath) })
//
// A part is fresh when its outputs exist and the SHA-256 of its inputs (every file's path and
// bytes, not their times: a checkout or a `touch` changes nothing) equals the one recorded in
// dist/.build-inputs/<part>.json by its last successful build. The hash is taken before the part
// builds, so an edit made during a build makes the next run build again.
'use strict';
const { spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { join, sep } = require('node:path');

const ROOT = join(__dirname, '..');
const STAMPS = join(ROOT, 'dist', '.build-inputs');

/** Folders never read as inputs, wherever they are. */
const IGNORED_DIRS = new Set(['node_modules', 'dist', '.git', '.local', 'coverage', 'artifacts']);
const EVERY_PART = ['package.json', 'package-lock.json'];

/**
 * The parts, in build order. `inputs` are files and folders (read whole, minus IGNORED_DIRS and
 * `skip`); a part's inputs must name everything its output depends on, or a change goes unbuilt.
 */
const PARTS = [
  {
    name: 'server',
    what: 'api, worker, studio and cli (tsc through nest build)',
    script: 'build:server',
    // The server's TypeScript (tsconfig.build.json: apps and libs but the studio page, the world
    // engine and the camera-path format); specs and test helpers are not compiled.
    inputs: [
      'apps',
      'libs',
      'packages/world-engine/src',
      'packages/camera-path/src',
      'tsconfig.json',
      'tsconfig.build.json',
      'nest-cli.json',
    ],
    skip: (path) => path.startsWith(`apps${sep}studio-web${sep}`) || /\.spec\.ts$/.test(path) || path.includes(`${sep}testing${sep}`),
    outputs: ['api', 'worker', 'studio', 'cli'].map((app) => `dist/apps/${app}/src/main.js`),
  },
  {
    name: 'client',
    what: 'the partner client, packages/client',
    script: 'build:client',
    inputs: ['packages/client/src', 'packages/client/tsconfig.build.json', 'packages/client/tsconfig.json', 'packages/client/package.json'],
    outputs: ['packages/client/dist/index.js'],
  },
  {
    name: 'studio',
    what: 'the studio page and its test build (vite)',
    script: 'build:studio',
    // The page imports only the camera-path format and the engine's scene-spec types from outside
    // its folder (the lint's web-page rules), and generated types of the studio API.
    inputs: [
      'apps/studio-web',
      'packages/camera-path/src',
      'packages/world-engine/src',
      'scripts/compress-assets.js',
      'scripts/check-bundle-budget.js',
      'scripts/lazy-chunks.js',
    ],
    skip: (path) => /\.spec\.ts$/.test(path),
    outputs: ['dist/apps/studio-web/index.html', 'dist/apps/studio-web-test/index.html'],
  },
];

/** Every file under `paths` (relative to `root`), sorted, for a stable hash. */
function listFiles(paths, { skip = () => false, root = ROOT } = {}) {
  const files = [];
  const walk = (rel) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs)) if (!IGNORED_DIRS.has(name)) walk(join(rel, name));
    } else if (!skip(rel)) {
      files.push(rel);
    }
  };
  for (const p of paths) walk(p);
  return [...new Set(files)].sort();
}

/** Hex SHA-256 of the paths and contents of every file under `paths` (files or folders, relative to `root`). */
function hashInputs(paths, { skip, root = ROOT } = {}) {
  const hash = createHash('sha256');
  for (const file of listFiles(paths, { skip, root })) {
    const bytes = readFileSync(join(root, file));
    // Length-prefixed, so no two different trees hash alike.
    hash.update(`${file.split(sep).join('/')}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

const partHash = (part) => hashInputs([...part.inputs, ...EVERY_PART], { skip: part.skip });
const stampFile = (part) => join(STAMPS, `${part.name}.json`);

/** Why `part` must build now, or null when it is fresh. `hash` is its inputs' hash now. */
function staleness(part, hash) {
  const missing = part.outputs.find((o) => !existsSync(join(ROOT, o)));
  if (missing) return `${missing} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile(part), 'utf8'));
  } catch {
    return 'no record of its last build';
  }
  return stamp.inputsSha256 === hash ? null : 'its sources changed';
}

/** The parts a build would run now: `[{ name, reason }]`. */
function staleParts() {
  return PARTS.map((part) => ({ name: part.name, reason: staleness(part, partHash(part)) })).filter((p) => p.reason);
}

/** Written whole or not at all: a build killed meanwhile leaves the previous record. */
function writeStamp(part, hash) {
  mkdirSync(STAMPS, { recursive: true });
  const tmp = `${stampFile(part)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ inputsSha256: hash, builtAt: new Date().toISOString() })}\n`);
  renameSync(tmp, stampFile(part));
}

/**
 * Runs one npm script; resolves with its exit status. With `ownProcessGroup` the script runs in a
 * process group of its own, and `signal` ends that whole group (npm, sh, tsc or vite under it):
 * `npm start` runs away from the terminal's Ctrl-C and stops its build itself.
 */
function runScript(script, { signal, ownProcessGroup = false } = {}) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(null);
    const child = spawn('npm', ['run', '--silent', script], { cwd: ROOT, stdio: 'inherit', detached: ownProcessGroup });
    const abort = () => {
      try {
        if (ownProcessGroup) process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      } catch {
        // Gone already.
      }
    };
    signal?.addEventListener('abort', abort, { once: true });
    child.once('error', () => resolve(1));
    child.once('exit', (code) => {
      signal?.removeEventListener('abort', abort);
      resolve(signal?.aborted ? null : code);
    });
  });
}

/**
 * Builds every part, or with `onlyChanged` those whose inputs changed (or whose outputs are
 * missing). Resolves `{ built, skipped }`; rejects naming the part that failed, or `aborted` when
 * `signal` ended it.
 */
async function build({ onlyChanged = false, log = (m) => process.stdout.write(`${m}\n`), signal, ownProcessGroup = false } = {}) {
  const built = [];
  const skipped = [];
  for (const part of PARTS) {
    const hash = partHash(part);
    const reason = onlyChanged ? staleness(part, hash) : 'asked for';
    if (!reason) {
      skipped.push(part.name);
      log(`${part.name}: unchanged since its last build, skipped`);
      continue;
    }
    if (onlyChanged) log(`${part.name}: building ${part.what} (${reason})`);
    const code = await runScript(part.script, { signal, ownProcessGroup });
    if (code === null) throw Object.assign(new Error('the build was stopped'), { aborted: true });
    if (code !== 0) throw new Error(`the ${part.name} build failed (npm run ${part.script}, above)`);
    writeStamp(part, hash);
    built.push(part.name);
  }
  return { built, skipped };
}

module.exports = { PARTS, build, staleParts, hashInputs, listFiles };

if (require.main === module) {
  build({ onlyChanged: process.argv.includes('--if-changed'), log: (m) => process.stderr.write(`${m}\n`) }).catch((e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
}
