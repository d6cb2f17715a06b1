import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, ConsoleMessage, Page } from 'playwright-core';
import { ROOT } from './processes';

/** Debian's Chromium, headless, with WebGL through SwiftShader; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
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
    ],
  });
}

/** Where screenshots go: a CI artifact, never committed (artifacts/ is ignored). */
export function artifactPath(name: string): string {
  const dir = join(ROOT, 'artifacts', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Collects console messages of a page (and its frames), e.g. CSP refusals. */
export function collectConsole(page: Page): ConsoleMessage[] {
  const messages: ConsoleMessage[] = [];
  page.on('console', (m) => messages.push(m));
  return messages;
}
