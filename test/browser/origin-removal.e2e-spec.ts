import { OrganizationsService } from '@app/organizations';
import { BrowserContext } from 'playwright-core';
import { DataSource } from 'typeorm';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { setUpEmbedStack } from '../support/embed-stack';
import { runCli } from '../support/processes';

const APP = 'https://app.acme.example';

/**
 * docs/api.md, "Approved origins", seen from an open studio: once an operator removes the origin
 * a session is bound to (`cli origin remove`), the studio shows its ended state within 2 s, as
 * for any revocation, with no reload.
 */
describe('an open studio when its origin is removed, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  it('shows the ended state within 2 s of the removal', async () => {
    await stack.api.app.get(OrganizationsService).addOrigin(stack.org.organizationId, APP);
    const sceneId = await readyScene(stack.api, stack.org);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: APP, mode: 'perform' });
    expect(session.status).toBe(201);
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    // The session's origin is not this test's, so it cannot frame it: opened on its own instead.
    await page.goto(session.body.url as string);
    const frame = page.mainFrame();
    await frame.waitForFunction(() => (window as any).__studio?.state().phase === 'active', undefined, { timeout: 20_000 });
    await frame.waitForFunction(() => (window as any).__studio.state().streamConnected === true, undefined, { timeout: 10_000 });
    // The page notes when it ended (same machine, same clock as the database's revocation time).
    await frame.evaluate(() => {
      const timer = setInterval(() => {
        if ((window as any).__studio.state().phase !== 'ended') return;
        (window as any).endedAt = Date.now();
        clearInterval(timer);
      }, 20);
    });

    const removed = await runCli(['origin', 'remove', '--org', stack.org.organizationId, '--origin', APP, '--json'], {
      DATABASE_URL: stack.env.databaseUrl,
      QUEUE_PREFIX: stack.env.queuePrefix,
    });
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ organizationId: stack.org.organizationId, origin: APP, removed: true });

    await frame.waitForFunction(() => typeof (window as any).endedAt === 'number', undefined, { timeout: 5_000 });
    const endedAt: number = await frame.evaluate(() => (window as any).endedAt);
    const [{ revoked_at }] = await stack.api.app
      .get(DataSource)
      .query<{ revoked_at: Date }[]>(`SELECT revoked_at FROM embed_sessions WHERE id = $1`, [session.body.embedSessionId]);
    expect(endedAt - revoked_at.getTime()).toBeLessThan(2000);
    expect(await frame.evaluate(() => (window as any).__studio.state())).toMatchObject({ phase: 'ended', endedReason: 'revoked' });
    await frame.getByRole('heading', { name: 'This session has ended' }).waitFor({ state: 'visible' });
  });
});
