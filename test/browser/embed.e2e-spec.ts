import { ManualClock } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { createServer, Server } from 'node:http';
import { Browser, Frame, Page } from 'playwright-core';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { TestOrganization } from '../factories/organization.factory';
import { RunningHttpApp } from '../support/apps';
import { collectConsole } from '../support/browser';
import { setUpEmbedStack } from '../support/embed-stack';
import { freePort } from '../support/processes';
import { PartnerApp } from '../support/partner-app';
import { pollUntil } from '../support/poll';

type StudioMessage = { source: string; version: number; type: string; payload: Record<string, any> };

/**
 * The rules of the product description, in a real browser: the reference partner page embeds
 * the studio; other origins cannot frame it; ended sessions end; modes are enforced by the
 * server; and the secret never leaks.
 */
describe('embedding the studio in a real browser', () => {
  let api: RunningHttpApp;
  let org: TestOrganization;
  let partner: PartnerApp;
  let browser: Browser;
  let embedOrigin: string;
  const clock = new ManualClock();
  const logs = { api: new LogCapture(), studio: new LogCapture(), worker: new LogCapture() };
  const secrets: string[] = [];

  const stack = setUpEmbedStack({ clock, logs });
  beforeAll(() => ({ api, org, partner, browser, embedOrigin } = stack));

  beforeEach(() => clock.set(Date.now()));

  /** Drives the reference page: generate, then open the studio in `mode`. Returns the iframe. */
  async function openThroughPartnerPage(
    page: Page,
    mode: 'edit' | 'perform' | 'edit_and_perform',
  ): Promise<{ frame: Frame; secret: string; sessionId: string }> {
    await page.goto(partner.origin);
    await page.getByLabel('Prompt').fill('A quiet lake among pines at sunset');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByRole('status').filter({ hasText: 'is ready' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Mode').selectOption(mode);
    const session = page.waitForResponse((r) => r.url().endsWith('/api/embed-sessions') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Open studio' }).click();
    const res = await session;
    expect(res.status()).toBe(201);
    expect(res.headers()['cache-control']).toBe('private, no-store');
    const { url } = (await res.json()) as { url: string };
    const { secret, sessionId } = parseEmbedUrl(url);
    secrets.push(secret);
    await page.waitForFunction(() => (window as any).partnerEvents.some((e: StudioMessage) => e.type === 'ready'), undefined, {
      timeout: 20_000,
    });
    const frame = page.frames().find((f) => f.url().startsWith(embedOrigin))!;
    return { frame, secret, sessionId };
  }

  const events = (page: Page) => page.evaluate(() => (window as any).partnerEvents as StudioMessage[]);

  it('the reference page loads the studio and gets ready from the embed origin', async () => {
    const page = await browser.newPage();
    try {
      const pageResponse = await page.goto(partner.origin);
      const headers = pageResponse!.headers();
      expect(headers['content-security-policy']).toContain(`frame-src ${embedOrigin}`);
      expect(headers['permissions-policy']).toContain(`gamepad=(self "${embedOrigin}")`);
      expect(headers['permissions-policy']).toContain(`hid=(self "${embedOrigin}")`);
      expect(headers['permissions-policy']).toContain(`fullscreen=(self "${embedOrigin}")`);

      const { frame, sessionId } = await openThroughPartnerPage(page, 'perform');
      const iframe = page.locator('iframe');
      expect(await iframe.getAttribute('title')).toBe('Scene camera studio');
      expect(await iframe.getAttribute('allow')).toBe('gamepad; hid; fullscreen');
      expect(await iframe.getAttribute('referrerpolicy')).toBe('no-referrer');
      expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-pointer-lock allow-forms');
      const box = (await iframe.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(640);
      expect(box.height).toBeGreaterThanOrEqual(360);

      const ready = (await events(page)).find((e) => e.type === 'ready')!;
      expect(ready).toMatchObject({ source: 'scene-studio', version: 1, payload: { embedSessionId: sessionId, mode: 'perform' } });
      expect(await page.evaluate(() => (window as any).partnerRejected)).toBe(0);
      // The studio removed the secret from its address at once.
      expect(frame.url()).toBe(`${embedOrigin}/embed/${sessionId}`);
      expect(await frame.evaluate(() => location.href)).toBe(`${embedOrigin}/embed/${sessionId}`);
    } finally {
      await page.close();
    }
  });

  it('a parent on another origin is refused by frame-ancestors', async () => {
    const sceneId = await readyScene(api, org);
    const res = await createEmbedSession(api, org, { sceneId, origin: partner.origin, mode: 'perform' });
    secrets.push(parseEmbedUrl(res.body.url).secret);
    const port = await freePort();
    const evil: Server = createServer((_, r) =>
      r.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other</title>'),
    );
    await new Promise<void>((resolve) => evil.listen(port, '127.0.0.1', resolve));
    const page = await browser.newPage();
    const consoleMessages = collectConsole(page);
    try {
      await page.goto(`http://localhost:${port}/`);
      await page.evaluate((src) => {
        (window as any).received = [];
        window.addEventListener('message', (e) => (window as any).received.push(e.data));
        const f = document.createElement('iframe');
        f.src = src;
        document.body.append(f);
      }, res.body.url);
      await pollUntil(
        async () => consoleMessages.map((m) => m.text()).join('\n'),
        (text) => /frame-ancestors/.test(text) && /(blocked|Refused to frame)/.test(text),
        { timeoutMs: 10_000, what: 'the frame-ancestors refusal' },
      );
      expect(await page.evaluate(() => (window as any).received)).toEqual([]);
    } finally {
      await page.close();
      await new Promise((r) => evil.close(r));
    }
  });

  it('unknown, expired and revoked sessions show the ended page', async () => {
    const sceneId = await readyScene(api, org);
    const make = async (extra: Record<string, unknown> = {}) => {
      const r = await createEmbedSession(api, org, { sceneId, origin: partner.origin, mode: 'edit', ...extra });
      secrets.push(parseEmbedUrl(r.body.url).secret);
      return r.body as { url: string; embedSessionId: string };
    };
    const revoked = await make();
    await api.http().delete(`/v1/embed-sessions/${revoked.embedSessionId}`).set(org.auth);
    const expired = await make({ expiresInSeconds: 300 });
    clock.advance(300_000);
    const unknown = `${embedOrigin}/embed/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE#${'x'.repeat(43)}`;
    const page = await browser.newPage();
    try {
      const texts: string[] = [];
      for (const url of [unknown, revoked.url, expired.url]) {
        const response = await page.goto(url);
        expect(response!.status()).toBe(404);
        texts.push(await page.locator('body').innerText());
      }
      expect(texts[0]).toContain('This session has ended');
      expect(new Set(texts).size).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('deleting the scene ends an open studio within 2 seconds', async () => {
    const page = await browser.newPage();
    try {
      const { frame } = await openThroughPartnerPage(page, 'edit_and_perform');
      const scene = /scn_[0-9A-HJKMNP-TV-Z]{26}/.exec(await page.locator('#status').innerText())![0];
      const deletedAt = Date.now();
      expect((await api.http().delete(`/v1/scenes/${scene}`).set(org.auth)).status).toBe(204);
      await page.waitForFunction(() => (window as any).partnerEvents.some((e: StudioMessage) => e.type === 'session.ended'), undefined, {
        timeout: 5000,
      });
      expect(Date.now() - deletedAt).toBeLessThan(2000);
      expect((await events(page)).find((e) => e.type === 'session.ended')!.payload).toEqual({ reason: 'revoked' });
      await pollUntil(
        () => frame.locator('body').innerText(),
        (t) => /session has ended/i.test(t),
        { what: 'the ended state' },
      );
    } finally {
      await page.close();
    }
  });

  it("a perform session's page cannot edit, even when a script in the page tries", async () => {
    const page = await browser.newPage();
    try {
      const { frame, secret } = await openThroughPartnerPage(page, 'perform');
      // A script running inside the studio page, holding the secret, calls the edit endpoint.
      const status = await frame.evaluate(
        async (bearer) =>
          (
            await fetch('/studio-api/v1/edits', {
              method: 'POST',
              headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
              body: JSON.stringify({ instruction: 'make it night' }),
            })
          ).status,
        secret,
      );
      expect(status).toBe(403);
      // The parent tries to raise the mode: refused, and nothing changes.
      await page.evaluate(() =>
        document
          .querySelector('iframe')!
          .contentWindow!.postMessage({ source: 'scene-studio', version: 1, type: 'mode.set', payload: { mode: 'edit' } }, '*'),
      );
      await page.waitForFunction(() => (window as any).partnerEvents.some((e: StudioMessage) => e.type === 'error'), undefined, {
        timeout: 5000,
      });
      expect((await events(page)).find((e) => e.type === 'error')!.payload.code).toBe('message_rejected');
      const session = await frame.evaluate(
        async (bearer) => (await fetch('/studio-api/v1/session', { headers: { authorization: `Bearer ${bearer}` } })).json(),
        secret,
      );
      expect(session.mode).toBe('perform');
      expect(await frame.getByRole('textbox', { name: /instruction|edit/i }).count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('the secret is in no message, log line, Referer or iframe address', async () => {
    const page = await browser.newPage();
    try {
      const { frame, secret } = await openThroughPartnerPage(page, 'edit');
      const allEvents = JSON.stringify(await events(page));
      expect(frame.url()).not.toContain('#');
      for (const s of secrets.concat(secret)) {
        expect(allEvents).not.toContain(s);
        expect(frame.url()).not.toContain(s);
        for (const [name, capture] of Object.entries(logs))
          expect({ name, leaked: capture.text.includes(s) }).toEqual({ name, leaked: false });
        expect(partner.stdout + partner.stderr).not.toContain(s);
        for (const referer of await partner.referers()) expect(referer).not.toContain(s);
      }
    } finally {
      await page.close();
    }
  });
});
