import { SceneStudioClient, testPrompt } from '@scene-studio/client';
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
      events: ['operation.failed'],
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

  it('shows a failure the test asked for, with its code, as the app passes it on', async () => {
    const { last } = await outcome(testPrompt({ fail: 'provider_unavailable' }, 'A sunlit greenhouse'));
    expect(last).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable', retryable: true } });
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
