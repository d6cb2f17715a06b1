import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { pollUntil } from './poll';
import { freePort, ROOT } from './processes';

/** One series of an instant query's answer. */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

interface ScrapeConfig {
  job_name: string;
  relabel_configs?: { target_label?: string; replacement?: string }[];
  dns_sd_configs?: unknown;
  static_configs?: { targets: string[] }[];
}

/**
 * A real Prometheus (Debian's `prometheus`, 2.42) for a test: the scrape configuration shipped in
 * deploy/monitoring/prometheus.yml, job by job as written, with each job's discovery replaced by
 * the address of the process it scrapes (`targets`, by the job's `component`), a 1 s scrape and
 * evaluation interval, the shipped rule files, a temporary data directory and a free port.
 */
export class PrometheusServer {
  private readonly stderr: string[] = [];

  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly exited: Promise<number | null>,
  ) {}

  static async start(targets: Record<string, string>): Promise<PrometheusServer> {
    const dir = mkdtempSync(join(tmpdir(), 'ss-prometheus-'));
    const shipped = parse(readFileSync(join(ROOT, 'deploy/monitoring/prometheus.yml'), 'utf8')) as {
      global: Record<string, string>;
      rule_files: string[];
      scrape_configs: ScrapeConfig[];
    };
    const config = {
      ...shipped,
      global: { ...shipped.global, scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: shipped.rule_files.map((f) => join(ROOT, 'deploy/monitoring', f)),
      scrape_configs: shipped.scrape_configs.map((job) => {
        const component = job.relabel_configs?.find((r) => r.target_label === 'component')?.replacement;
        const target = component && targets[component];
        if (!target) throw new Error(`no target given for ${job.job_name} (component ${component})`);
        const { dns_sd_configs: _discovery, ...rest } = job;
        return { ...rest, static_configs: [{ targets: [target] }] };
      }),
    };
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
    const port = await freePort();
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let gone: string | null = null;
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code) => {
        gone = `exited ${code}`;
        resolve(code);
      });
      // Not installed (ENOENT): no exit follows. npm test's prerequisite check names the package.
      child.on('error', (e) => {
        gone = e.message;
        resolve(null);
      });
    });
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, child, dir, exited);
    child.stderr!.on('data', (d: Buffer) => server.stderr.push(d.toString()));
    try {
      await pollUntil(
        () =>
          fetch(`${server.url}/-/ready`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200 || gone !== null,
        { timeoutMs: 30_000, intervalMs: 100, what: 'Prometheus to be ready' },
      );
      if (gone !== null) throw new Error(`prometheus ${gone}: ${server.log}`);
    } catch (e) {
      await server.stop();
      throw e;
    }
    return server;
  }

  /** What Prometheus wrote to stderr (warnings and errors). */
  get log(): string {
    return this.stderr.join('');
  }

  async api<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${this.url}/api/v1/${path}?${new URLSearchParams(params)}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  }

  /** An instant query, now; throws on an expression Prometheus refuses. */
  async query(expr: string): Promise<Sample[]> {
    const data = await this.api<{ resultType: string; result: Sample[] }>('query', { query: expr });
    if (data.resultType !== 'vector') throw new Error(`${expr}: a ${data.resultType}, not a vector`);
    return data.result;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
