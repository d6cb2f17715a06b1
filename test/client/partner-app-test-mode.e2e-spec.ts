import { SceneStudioClient, TestFailureCode, testPrompt } from '@scene-studio/client';
import { PartnerApp } from '../support/partner-app';
import { pollUntil } from '../support/poll';
import { freePort } from '../support/processes';
import { setUpSuite } from '../support/suite';

/**
 * examples/partner-app driven in test mode, as a partner's own suite would: outcomes asked for
 * through the app's routes (which reach Scene Studio only through @scene-studio/client), and a
 * test event sent to the app's webhook route, which verifies it with the typed client.
 */
describe('examples/partner-app in test mode', () => {
  const suite = setUpSuite({
    worker: { config: { GENERATION_POLL_INTERVAL_MS: '100', GENERATION_POLL_MAX_MS: '200' } },
    org: { test: true },
  });
  let partner: PartnerApp;
  let cookie: string;
  let endpointId: string;
  let client: SceneStudioClient;

  beforeAll(async () => {
    client = new SceneStudioClient({ apiKey: suite.org.apiKey, baseUrl: suite.api.url });
    // The app's webhook URL is registered first: its secret is what the app must verify with.
    const port = await freePort();
    const endpoint = await client.createWebhookEndpoint({
      url: `http://localhost:${port}/webhooks/scene-studio`,
      events: ['operation.failed', 'embed_session.ended'],
    });
    endpointId = endpoint.webhookEndpointId;
    partner = await PartnerApp.start({
      apiKey: suite.org.apiKey,
      apiUrl: suite.api.url,
      embedOrigin: 'http://localhost:3001',
      webhookSecret: endpoint.secret,
      port,
    });
    const page = await fetch(partner.origin);
    cookie = page.headers.get('set-cookie')!.split(';')[0];
  });
  afterAll(() => partner?.stop());

  async function outcome(prompt: string): Promise<{ seen: { status: string; stage?: string }[]; last: Record<string, unknown> }> {
    const created = await fetch(`${partner.origin}/api/scenes`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    expect(created.status).toBe(202);
    const { operationId } = (await created.json()) as { operationId: string };
    const seen: { status: string; stage?: string }[] = [];
    const last = await pollUntil(
      async () => {
        const res = await fetch(`${partner.origin}/api/operations/${operationId}`, { headers: { cookie } });
        const body = (await res.json()) as { status: string; stage?: string };
        seen.push(body);
        return body;
      },
      (b) => b.status !== 'processing',
      { timeoutMs: 30_000, intervalMs: 100, what: 'the operation through the partner app' },
    );
    return { seen, last };
  }

  // Every public generation failure, as docs/api.md lists them with whether a retry may help.
  const FAILURES: Array<[TestFailureCode, boolean]> = [
    ['generation_failed', true],
    ['provider_unavailable', true],
    ['provider_timeout', true],
    ['provider_rejected', false],
    ['provider_quota_exceeded', false],
  ];
  it.each(FAILURES)('shows the failure %s the test asked for, as the app passes it on', async (code, retryable) => {
    const { last } = await outcome(testPrompt({ fail: code }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'failed', error: { code, retryable } });
    // The app's webhook route received and verified the operation.failed event too.
    await pollUntil(
      () => partner.webhooks(),
      (events) => events.some((e) => e.type === 'operation.failed'),
      { timeoutMs: 15_000, intervalMs: 100, what: "operation.failed at the app's webhook route" },
    );
  });

  it('shows a cancel by the provider as a failed operation with code cancelled', async () => {
    const { last } = await outcome(testPrompt({ cancel: true }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'failed', error: { code: 'cancelled', retryable: true } });
  });

  it('shows a throttled generation waiting at the queued stage, then succeeded', async () => {
    const { seen, last } = await outcome(testPrompt({ throttleSeconds: 2 }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'succeeded', version: 1 });
    expect(seen.some((s) => s.status === 'processing' && s.stage === 'queued')).toBe(true);
  });

  it('opens a studio session through the app, and once the test clock expires it the app can no longer extend it', async () => {
    const { last } = await outcome(testPrompt({ succeed: true }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'succeeded' });
    const opened = await fetch(`${partner.origin}/api/embed-sessions`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ sceneId: last.sceneId, mode: 'perform' }),
    });
    expect(opened.status).toBe(201);
    const { embedSessionId } = (await opened.json()) as { embedSessionId: string };
    const extend = () => fetch(`${partner.origin}/api/embed-sessions/${embedSessionId}/extend`, { method: 'POST', headers: { cookie } });
    expect((await extend()).status).toBe(200);

    await client.expireEmbedSession(embedSessionId);
    const refused = await extend();
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'not_found' });
    await pollUntil(
      () => partner.webhooks(),
      (events) => events.some((e) => e.type === 'embed_session.ended'),
      { timeoutMs: 15_000, intervalMs: 100, what: "embed_session.ended at the app's webhook route" },
    );
  });

  it('shows a timed generation processing at the generating stage, then succeeded', async () => {
    const { seen, last } = await outcome(testPrompt({ durationSeconds: 2 }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'succeeded', version: 1 });
    expect(seen.some((s) => s.status === 'processing' && s.stage === 'generating')).toBe(true);
  });

  it("receives a test event on the app's webhook route, verified by the typed client", async () => {
    const sent = await client.testWebhookEndpoint(endpointId);
    expect(sent).toMatchObject({ delivered: true, attempt: { statusCode: 204, error: null } });
    expect(await partner.webhooks()).toContainEqual({ webhookId: sent.messageId, type: 'webhook.test' });
  });
});
