'use strict';
// node scripts/check-no-external-contract.js — part of `npm run lint`.
//
// The repository describes its own API: docs/api.md, docs/embed.md and the OpenAPI documents are
// the reference, and a comment, test or doc that needs a rule points at them (or states the rule).
// A citation of a document outside the repository ("contract section 7", "contract § 4") sends
// whoever clones it to text they cannot read, so this check fails on any, in every tracked file
// but this one, naming file and line. A checkout without git (a source tarball) is skipped.

const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const SELF = relative(ROOT, __filename).split('\\').join('/');
// Across a line break too ("contract" at the end of a comment line, "section 7" on the next):
// comment markers and whitespace between the two words are skipped.
const CITATION = /contract(?:[\s*#/]|\/\/)*(?:section|§)/gi;

function tracked() {
  try {
    return execFileSync('git', ['ls-files', '-z'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    })
      .split('\0')
      .filter(Boolean);
  } catch {
    return null;
  }
}

const files = tracked();
if (files === null) {
  console.log('check-no-external-contract: not a git checkout, skipped');
  process.exit(0);
}

const problems = [];
for (const file of files) {
  if (file === SELF) continue;
  const path = join(ROOT, file);
  if (!existsSync(path)) continue; // deleted in the work tree, not yet committed
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 8000).includes(0)) continue; // binary
  const text = bytes.toString('utf8');
  for (const match of text.matchAll(CITATION)) {
    const line = text.slice(0, match.index).split('\n').length;
    problems.push(`${file}:${line}: ${match[0].replace(/\s+/g, ' ').slice(0, 160)}`);
  }
}
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(
    `\n${problems.length} citation(s) of an external contract: point at our own docs instead (docs/api.md, docs/embed.md, the OpenAPI document) or state the rule.`,
  );
  process.exitCode = 1;
}
