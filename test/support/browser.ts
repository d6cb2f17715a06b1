import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, ConsoleMessage, Page } from 'playwright-core';
import { ROOT } from './processes';

// Shared with the studio benchmark, which is plain JavaScript.
const { chromiumLaunchOptions } = require('../../scripts/chromium') as {
  chromiumLaunchOptions: () => Parameters<typeof chromium.launch>[0];
};

/** Debian's Chromium, headless, with WebGL through SwiftShader; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
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
