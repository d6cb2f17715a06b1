'use strict';
// node scripts/check-commit-subjects.js — part of `npm run lint`.
//
// Commit subjects of at most 72 characters, detail in the body, so `git log --oneline` stays
// readable (CONTRIBUTING in the README). History before the rule (up to RULE_SINCE) is left as
// it landed: rewriting published commits would break every clone. A checkout without git, or a
// shallow one that lacks RULE_SINCE, checks only the commits it has after it, or the last one.

const { execFileSync } = require('node:child_process');

const MAX = 72;
/** The last commit whose subject was allowed to be longer: everything after it is checked. */
const RULE_SINCE = '9e451a93588440437062319404771f01405a3838';

function git(...args) {
  return execFileSync('git', args, { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

function subjects() {
  try {
    git('rev-parse', '--is-inside-work-tree');
  } catch {
    return null; // a source tarball: nothing to check
  }
  let range = `${RULE_SINCE}..HEAD`;
  try {
    git('cat-file', '-e', `${RULE_SINCE}^{commit}`);
  } catch {
    range = '-1'; // shallow clone without the rule's start: the newest commit at least
  }
  const out = git('log', '--format=%h%x09%s', range === '-1' ? '-1' : range);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
}

const list = subjects();
if (list === null) {
  console.log('check-commit-subjects: not a git checkout, skipped');
  process.exit(0);
}
const long = list.filter((c) => [...c.subject].length > MAX);
if (long.length > 0) {
  for (const c of long) {
    console.error(`${c.sha}: subject is ${[...c.subject].length} characters (at most ${MAX}): ${c.subject}`);
  }
  console.error('Reword the subject (git commit --amend / git rebase -i before pushing); put detail in the body.');
  process.exit(1);
}
