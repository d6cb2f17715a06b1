import { Page } from 'playwright-core';
import { setUpEmbedStack } from '../support/embed-stack';
import { PartnerApp } from '../support/partner-app';
import { pollUntil } from '../support/poll';
import { freePort } from '../support/processes';
import { studioEvents, waitForEvent } from '../support/studio-frame';

/**
 * Issue 15's whole story, through the reference partner app built on the typed client: it
 * receives a signed `operation.succeeded` webhook for the scene it generates and verifies it,
 * opens the studio, and extends the session from the parent page when the studio says it is
 * expiring — without a reload.
 */
describe('a partner on the typed client: webhooks, the studio, and an extended session', () => {
  const stack = setUpEmbedStack();
  let partner: PartnerApp;

  beforeAll(async () => {
    const port = await freePort();
    const endpoint = await stack.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(stack.org.auth)
      .send({ url: `http://localhost:${port}/webhooks/scene-studio`, events: ['operation.succeeded'] });
    expect(endpoint.status).toBe(201);
    // Five-minute sessions: the studio warns at once, and the page extends.
    partner = await PartnerApp.start({
      apiKey: stack.org.apiKey,
      apiUrl: stack.api.url,
      embedOrigin: stack.embedOrigin,
      webhookSecret: endpoint.body.secret,
      sessionSeconds: 300,
      port,
    });
  });
  afterAll(() => partner?.stop());

  const partnerEvents = (page: Page) => studioEvents(page, 'partnerEvents');

  it('gets the verified webhook, opens the studio, and extends the session on session.expiring', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(partner.origin);
      await page.getByLabel('Prompt').fill('A quiet lake among pines at sunset');
      await page.getByRole('button', { name: 'Generate' }).click();
      await page.getByRole('status').filter({ hasText: 'is ready' }).waitFor({ timeout: 30_000 });

      // The partner's backend got the signed webhook and verified it (it records only verified ones).
      const hooks = await pollUntil(
        () => partner.webhooks(),
        (w) => w.some((e) => e.type === 'operation.succeeded'),
        { what: 'the verified operation.succeeded webhook', timeoutMs: 15_000 },
      );
      expect(hooks.filter((e) => e.type === 'operation.succeeded')).toHaveLength(1);

      await page.getByLabel('Mode').selectOption('edit');
      await page.getByRole('button', { name: 'Open studio' }).click();
      await waitForEvent(page, 'ready', 20_000, 'partnerEvents');
      const warning = await waitForEvent(page, 'session.expiring', 10_000, 'partnerEvents');
      const extended = await waitForEvent(page, 'session.extended', 15_000, 'partnerEvents');
      expect(Date.parse(extended.payload.expiresAt as string)).toBeGreaterThan(Date.parse(warning.payload.expiresAt as string));
      const types = (await partnerEvents(page)).map((e) => e.type);
      expect(types).not.toContain('session.ended');
      // One warning, one extension: an extension does not warn again at once (no loop).
      expect(types.filter((t) => t === 'session.expiring')).toHaveLength(1);
      expect(types.filter((t) => t === 'session.extended')).toHaveLength(1);
      expect(partner.stdout).not.toMatch(/whsec_|#[A-Za-z0-9_-]{43}/);
    } finally {
      await context.close();
    }
  });
});
