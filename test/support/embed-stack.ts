import { Clock, ConfigOverrides } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import { Browser } from 'playwright-core';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp, startApi, startStudio, startWorker } from './apps';
import { launchChromium } from './browser';
import { BROWSER_SLOT_WAIT_MS, takeBrowserSlot } from './browser-slot';
import { createTestEnvironment, TestEnvironment } from './environment';
import { PartnerApp } from './partner-app';
import { freePort } from './processes';

/** Everything a browser suite embeds the studio with. Fields are set once its beforeAll ran. */
export interface EmbedStack {
  env: TestEnvironment;
  api: RunningHttpApp;
  studio: RunningHttpApp;
  worker: INestApplicationContext;
  /** A test organization, so the partner app's http://localhost:<port> origin is allowed. */
  org: TestOrganization;
  /** The reference partner app (examples/partner-app), on its own localhost origin. */
  partner: PartnerApp;
  browser: Browser;
  /** The studio's origin, known before the apps start so both write it into embed URLs. */
  embedOrigin: string;
}

export interface EmbedStackOptions {
  /** Given to the api and the studio (the worker keeps real time). */
  clock?: Clock;
  logs?: { api?: LogCapture; studio?: LogCapture; worker?: LogCapture };
  /** The worker's settings (another generator, say), read when the stack starts. */
  worker?: () => ConfigOverrides;
}

/**
 * Registers the beforeAll that starts a whole embedding stack — api, studio on a port chosen
 * first, worker, a test organization, the partner app and Chromium — and the afterAll that stops
 * the browser and the partner app before the apps they talk to.
 */
export function setUpEmbedStack(options: EmbedStackOptions = {}): EmbedStack {
  const stack = {} as EmbedStack;
  let releaseSlot: (() => Promise<void>) | undefined;

  // Apart from the start below, with a deadline of its own: waiting for a slot is not starting.
  beforeAll(async () => {
    releaseSlot = await takeBrowserSlot();
  }, BROWSER_SLOT_WAIT_MS + 60_000);

  beforeAll(async () => {
    // The browser first: without one, nothing else is started (and left running) for nothing.
    stack.browser = await launchChromium();
    stack.env = await createTestEnvironment();
    const studioPort = await freePort();
    stack.embedOrigin = `http://localhost:${studioPort}`;
    const config = { PUBLIC_EMBED_ORIGIN: stack.embedOrigin };
    stack.api = await startApi(stack.env, { clock: options.clock, logs: options.logs?.api, config });
    stack.studio = await startStudio(stack.env, { clock: options.clock, logs: options.logs?.studio, port: studioPort, config });
    stack.worker = await startWorker(stack.env, { logs: options.logs?.worker, config: options.worker?.() });
    stack.org = await createOrganization(stack.api.app, { test: true });
    stack.partner = await PartnerApp.start({ apiKey: stack.org.apiKey, apiUrl: stack.api.url, embedOrigin: stack.embedOrigin });
  });

  afterAll(async () => {
    // Every step runs even when one before it throws, so no process is left behind; the first
    // error is reported.
    const steps = [
      () => stack.browser?.close(),
      () => releaseSlot?.(),
      () => stack.partner?.stop(),
      () => stack.worker?.close(),
      () => stack.studio?.close(),
      () => stack.api?.close(),
      () => stack.env?.dispose(),
    ];
    const errors: unknown[] = [];
    for (const step of steps) await Promise.resolve(step()).catch((e: unknown) => errors.push(e));
    if (errors.length) throw errors[0];
  });

  return stack;
}
