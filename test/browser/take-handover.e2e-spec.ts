import { BrowserContext } from 'playwright-core';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { setUpEmbedStack } from '../support/embed-stack';
import { embedStudio, startShortTake, studioEvents, waitForEvent, waitForVersion } from '../support/studio-frame';

const RENDER_TIMEOUT = 30_000;

/**
 * Never lose a take (issue 14, item 1): a take still recording when the session ends is
 * finished and handed to the parent before `session.ended`, and the ended screen inside the
 * sandbox says where it went instead of offering links that cannot download.
 */
describe('a take running when the session ends, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  it.each([
    ['revoked', 'DELETE /v1/embed-sessions/{id}'],
    ['scene deleted', 'DELETE /v1/scenes/{id}'],
  ])('reaches the parent before session.ended when the session is %s (%s)', async (how) => {
    const sceneId = await readyScene(stack.api, stack.org);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const { frame } = await embedStudio(page, session.body.url as string, { width: 960, height: 600 });
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    // Some frames in the take.
    await startShortTake(page, frame, { frames: 5, timeoutMs: RENDER_TIMEOUT });

    const path = how === 'revoked' ? `/v1/embed-sessions/${session.body.embedSessionId}` : `/v1/scenes/${sceneId}`;
    expect((await stack.api.http().delete(path).set(stack.org.auth)).status).toBe(204);

    await waitForEvent(page, 'session.ended', 20_000);
    const events = await studioEvents(page);
    const types = events.map((e) => e.type);
    const completed = events.find((e) => e.type === 'recording.completed');
    expect(completed?.payload.sizeBytes).toBeGreaterThan(0);
    expect(completed?.payload.video).toMatchObject({ blob: true });
    expect(types.indexOf('recording.completed')).toBeLessThan(types.indexOf('session.ended'));
    expect(events.find((e) => e.type === 'session.ended')!.payload).toEqual({ reason: 'revoked' });

    // Inside the sandbox: no download links that would do nothing; the screen says where the take went.
    await frame.getByText('handed to the page around this studio').waitFor({ timeout: 10_000 });
    expect(await frame.locator('a[download]').count()).toBe(0);
  });
});
