import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { join } from 'node:path';
import { PartnerApp } from '../support/partner-app';
import { pollUntil } from '../support/poll';
import { freePort, ROOT } from '../support/processes';
import { setUpSuite } from '../support/suite';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * examples/partner-app, the reference integration, through its own HTTP routes: it reaches
 * Scene Studio only through @scene-studio/client. (test/browser/embed.e2e-spec.ts drives it from
 * a real browser.) And it never outlives the test process that started it.
 */
describe('examples/partner-app on the typed client', () => {
  const suite = setUpSuite({ worker: {} });
  let partner: PartnerApp;
  let cookie: string;
  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;

  beforeAll(async () => {
    partner = await PartnerApp.start({
      apiKey: suite.org.apiKey,
      apiUrl: suite.api.url,
      embedOrigin: 'http://localhost:3001',
      webhookSecret,
    });
    const page = await fetch(partner.origin);
    cookie = page.headers.get('set-cookie')!.split(';')[0];
  });
  afterAll(() => partner?.stop());

  const post = (path: string, body: unknown) =>
    fetch(`${partner.origin}${path}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('creates a scene, polls it with Retry-After, and issues a private no-store embed URL', async () => {
    const created = await post('/api/scenes', { prompt: 'A sunlit greenhouse' });
    expect(created.status).toBe(202);
    const { operationId } = (await created.json()) as { operationId: string };
    const done = await pollUntil(
      async () => {
        const res = await fetch(`${partner.origin}/api/operations/${operationId}`, { headers: { cookie } });
        const body = (await res.json()) as { status: string; sceneId?: string };
        if (body.status === 'processing') expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        return body;
      },
      (b) => b.status !== 'processing',
      { timeoutMs: 60_000, intervalMs: 100, what: 'the scene through the partner app' },
    );
    expect(done).toMatchObject({ operationId, status: 'succeeded' });

    const session = await post('/api/embed-sessions', { sceneId: done.sceneId, mode: 'edit' });
    expect(session.status).toBe(201);
    expect(session.headers.get('cache-control')).toBe('private, no-store');
    const body = (await session.json()) as { url: string; mode: string; embedSessionId: string };
    expect(body).toMatchObject({ mode: 'edit', embedSessionId: expect.stringMatching(/^es_/) });
    expect(new URL(body.url).hash.length).toBeGreaterThan(20);
    // The app logs routes and Scene Studio's error codes, never an embed URL.
    expect(partner.stdout + partner.stderr).not.toContain(new URL(body.url).hash.slice(1));
  });

  it('passes Scene Studio’s problem on, and logs only its code and request id', async () => {
    const res = await post('/api/scenes', { prompt: 'x'.repeat(4001) });
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { code: string; requestId: string };
    expect(problem).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'prompt' })] });
    await pollUntil(
      async () => partner.stdout,
      (out) => out.includes(`Scene Studio answered 422 validation_failed (request ${problem.requestId})`),
      { what: 'the log line' },
    );
  });

  it('receives Standard Webhooks: verifies the signature, handles a retried delivery once, refuses a forgery', async () => {
    const body = JSON.stringify({
      type: 'scene.deleted',
      timestamp: new Date().toISOString(),
      data: { sceneId: 'scn_x', externalRef: null },
    });
    const deliver = (secret: string, id: string) => {
      const now = new Date();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, now, body),
      };
      return fetch(`${partner.origin}/webhooks/scene-studio`, { method: 'POST', headers, body });
    };
    expect((await deliver(webhookSecret, 'msg_one')).status).toBe(204);
    expect((await deliver(webhookSecret, 'msg_one')).status).toBe(204);
    expect((await deliver(`whsec_${randomBytes(32).toString('base64')}`, 'msg_forged')).status).toBe(400);
    expect(await partner.webhooks()).toEqual([{ webhookId: 'msg_one', type: 'scene.deleted' }]);
  });

  it('exits when the process that started it dies without cleaning up (a killed jest run)', async () => {
    // A stand-in for a jest worker: starts the app as the helper does (with an IPC channel),
    // reports its pid, and is then killed outright, with no chance to run an afterAll.
    const port = await freePort();
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, [process.argv[1]], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
         c.stdout.on('data', (d) => { if (String(d).includes('listening')) process.stdout.write('PID ' + c.pid + '\\n'); });`,
        join(ROOT, 'examples/partner-app/server.js'),
      ],
      {
        env: { ...process.env, PARTNER_API_KEY: 'sk_test_unused', PARTNER_API_URL: suite.api.url, PARTNER_APP_PORT: String(port) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    parent.stdout!.on('data', (d) => (out += d));
    const pid = Number(
      (await pollUntil(
        async () => /PID (\d+)/.exec(out),
        (m) => m !== null,
        { timeoutMs: 20_000, what: 'the pid' },
      ))![1],
    );
    expect(alive(pid)).toBe(true);
    try {
      parent.kill('SIGKILL');
      await pollUntil(
        async () => alive(pid),
        (a) => !a,
        { timeoutMs: 10_000, what: `partner app ${pid} to exit` },
      );
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
