import { join } from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import { freePort, ROOT } from './processes';

/** The reference partner app (examples/partner-app) as a real process. */
export class PartnerApp {
  stdout = '';
  stderr = '';
  private constructor(
    readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(env: { apiKey: string; apiUrl: string; embedOrigin: string }): Promise<PartnerApp> {
    const port = await freePort();
    const child = spawn(process.execPath, [join(ROOT, 'examples/partner-app/server.js')], {
      env: {
        ...process.env,
        PARTNER_API_KEY: env.apiKey,
        PARTNER_API_URL: env.apiUrl,
        PARTNER_EMBED_ORIGIN: env.embedOrigin,
        PARTNER_APP_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const app = new PartnerApp(child, `http://localhost:${port}`);
    child.stdout!.on('data', (d) => (app.stdout += d));
    child.stderr!.on('data', (d) => (app.stderr += d));
    await new Promise<void>((resolve, reject) => {
      const onData = () => app.stdout.includes('partner example listening') && resolve();
      child.stdout!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`partner app exited (${code}): ${app.stderr}`)));
    });
    return app;
  }

  async referers(): Promise<string[]> {
    return ((await (await fetch(`${this.origin}/__referers`)).json()) as { referers: string[] }).referers;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
