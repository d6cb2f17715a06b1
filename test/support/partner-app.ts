import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import { freePort, ROOT } from './processes';

/** Every partner app this test process started and has not seen exit: killed when it exits. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * The reference partner app (examples/partner-app) as a real process. It cannot outlive the
 * test: it is spawned with an IPC channel and exits when the channel closes (the jest worker
 * ended, even by SIGKILL); a failed start kills it; `stop()` escalates to SIGKILL.
 */
export class PartnerApp {
  stdout = '';
  stderr = '';
  private constructor(
    readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(
    env: { apiKey: string; apiUrl: string; embedOrigin: string; webhookSecret?: string; sessionSeconds?: number; port?: number },
    { timeoutMs = 20_000 }: { timeoutMs?: number } = {},
  ): Promise<PartnerApp> {
    if (!existsSync(join(ROOT, 'packages/client/dist/index.js'))) {
      throw new Error('examples/partner-app needs the built client (packages/client/dist): run `npm run build`');
    }
    // A port chosen beforehand lets a test register the app's webhook URL before it starts.
    const port = env.port ?? (await freePort());
    const child = spawn(process.execPath, [join(ROOT, 'examples/partner-app/server.js')], {
      env: {
        ...process.env,
        PARTNER_API_KEY: env.apiKey,
        PARTNER_API_URL: env.apiUrl,
        PARTNER_EMBED_ORIGIN: env.embedOrigin,
        PARTNER_APP_PORT: String(port),
        ...(env.webhookSecret ? { PARTNER_WEBHOOK_SECRET: env.webhookSecret } : {}),
        ...(env.sessionSeconds ? { PARTNER_SESSION_SECONDS: String(env.sessionSeconds) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    const app = new PartnerApp(child, `http://localhost:${port}`);
    child.stdout!.on('data', (d) => (app.stdout += d));
    child.stderr!.on('data', (d) => (app.stderr += d));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`partner app not listening after ${timeoutMs} ms: ${app.stderr}`)), timeoutMs);
        child.stdout!.on('data', () => {
          if (app.stdout.includes('partner example listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`partner app exited (${code}): ${app.stderr}`));
        });
      });
    } catch (e) {
      await app.stop();
      throw e;
    }
    return app;
  }

  /** The webhook events the app handled, once each. */
  async webhooks(): Promise<Array<{ webhookId: string; type: string }>> {
    return ((await (await fetch(`${this.origin}/__webhooks`)).json()) as { events: Array<{ webhookId: string; type: string }> }).events;
  }

  async referers(): Promise<string[]> {
    return ((await (await fetch(`${this.origin}/__referers`)).json()) as { referers: string[] }).referers;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (exited(this.child)) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}
