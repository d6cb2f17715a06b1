// How every browser here is launched — the tests (test/support/browser.ts) and the studio
// benchmark (bench/studio.js): Debian's Chromium, headless, WebGL through SwiftShader, never a
// downloaded browser. Without the background-networking flags Chromium keeps dialling out and
// this machine's closed network refuses it.
'use strict';
const { accessSync, constants } = require('node:fs');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader',
  '--autoplay-policy=no-user-gesture-required',
  // localhost → IPv4 only: every server here listens on 127.0.0.1.
  '--host-resolver-rules=MAP localhost 127.0.0.1',
];

const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

function chromiumPath(env = process.env) {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
}

/**
 * Null when the browser can be launched, else a message that says what to do. Checked before
 * anything is started, so a missing browser fails a run at once instead of half-starting it.
 */
function chromiumProblem(env = process.env) {
  const path = chromiumPath(env);
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return [
      `No Chromium at ${path}${env.CHROMIUM_PATH ? ' (CHROMIUM_PATH)' : ''}: the browser suites (test/browser, the studio benchmark) need one.`,
      'Install it (Debian/Ubuntu: sudo apt-get install chromium; macOS: brew install --cask chromium),',
      'or set CHROMIUM_PATH to a Chromium or Chrome executable, e.g.',
      '  CHROMIUM_PATH="/Applications/Chromium.app/Contents/MacOS/Chromium" npm test',
    ].join('\n');
  }
}

function chromiumLaunchOptions(env = process.env) {
  return { executablePath: chromiumPath(env), headless: true, args: CHROMIUM_ARGS };
}

module.exports = { CHROMIUM_ARGS, chromiumLaunchOptions, chromiumPath, chromiumProblem };
