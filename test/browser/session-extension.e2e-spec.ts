import { BrowserContext } from 'playwright-core';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { setUpEmbedStack } from '../support/embed-stack';
import { embedStudio, studioEvents, waitForEvent } from '../support/studio-frame';

/**
 * A session that is about to expire: the studio warns the parent (`session.expiring`) and shows a
 * banner, the
 * partner extends it through the api, and the open studio learns the new expiry by server push
 * (`session.extended`), with no reload and the same URL.
 */
describe('extending an open studio’s session, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  it('warns the parent before the expiry, then takes the extension without a reload', async () => {
    const sceneId = await readyScene(stack.api, stack.org);
    // Five minutes: already inside the first warning's window, so the warning comes at once.
    const session = await createEmbedSession(stack.api, stack.org, {
      sceneId,
      origin: stack.partner.origin,
      mode: 'edit',
      expiresInSeconds: 300,
    });
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const { frame, sessionId } = await embedStudio(page, session.body.url as string, { width: 960, height: 600 });
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));

    const warning = await waitForEvent(page, 'session.expiring');
    expect(warning.payload).toEqual({ expiresAt: session.body.expiresAt, secondsLeft: expect.any(Number) });
    expect(warning.payload.secondsLeft).toBeGreaterThan(240);
    expect(warning.payload.secondsLeft).toBeLessThanOrEqual(300);
    // The person in the studio sees it too: a banner says how long is left and what happens then.
    const banner = frame.locator('#expiry-banner');
    await banner.waitFor({ state: 'visible' });
    expect(await banner.innerText()).toMatch(/^This session ends in about [45] minutes\. A take still recording then is finished/);

    const extended = await stack.api
      .http()
      .post(`/v1/embed-sessions/${sessionId}:extend`)
      .set(stack.org.auth)
      .send({ expiresInSeconds: 3600 });
    expect(extended.status).toBe(200);
    const news = await waitForEvent(page, 'session.extended', 10_000);
    expect(news.payload).toEqual({ expiresAt: extended.body.expiresAt });
    await banner.waitFor({ state: 'hidden' });
    // Same document, still active, and no second warning for the new expiry (an hour away).
    expect(navigations).toEqual([]);
    expect(await frame.evaluate(() => (window as any).__studio.state().phase)).toBe('active');
    expect((await studioEvents(page)).filter((e) => e.type === 'session.expiring')).toHaveLength(1);
    expect((await studioEvents(page)).map((e) => e.type)).not.toContain('session.ended');
  });
});
