// How every browser here is launched — the tests (test/support/browser.ts) and the studio
// benchmark (bench/studio.js): Debian's Chromium, headless, WebGL through SwiftShader, never a
// downloaded browser. Without the background-networking flags Chromium keeps dialling out and
// this machine's closed network refuses it.
'use strict';

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

function chromiumLaunchOptions(env = process.env) {
  return { executablePath: env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS };
}

module.exports = { CHROMIUM_ARGS, chromiumLaunchOptions };
