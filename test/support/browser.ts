import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, ConsoleMessage, Page } from 'playwright-core';
import { ROOT } from './processes';

// Shared with the studio benchmark, which is plain JavaScript.
const { chromiumLaunchOptions, chromiumProblem } = require('../../scripts/chromium') as {
  chromiumLaunchOptions: () => Parameters<typeof chromium.launch>[0];
  chromiumProblem: () => string | null;
};

/**
 * Debian's Chromium, headless, with WebGL through SwiftShader; never a downloaded browser.
 * Without one it fails at once with a message naming CHROMIUM_PATH.
 */
export async function launchChromium(): Promise<Browser> {
  const problem = chromiumProblem();
  if (problem) throw new Error(problem);
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
