import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createEmbedSession } from '../factories/embed.factory';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { RunningOpsServer, startOps } from '../support/apps';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { pollUntil } from '../support/poll';
import { PrometheusServer, Sample } from '../support/prometheus';
import { ROOT } from '../support/processes';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The monitoring that ships with the service, read by a real Prometheus: the shipped scrape
 * configuration (deploy/monitoring/prometheus.yml, its discovery pointed at the ops servers of an
 * api, a studio and a worker running here) and rules, after some traffic — a scene created to
 * success, one that fails at the provider, one the provider throttles, an upload, an embed
 * session whose open event stream sees it revoked, webhooks to a healthy and a failing endpoint.
 * Then every dashboard panel's expression and every recording rule's expression must return data,
 * and every metric and label an alert names must exist: no typo can hide in a query that only
 * ever answers "nothing".
 */
const MONITORING = join(ROOT, 'deploy/monitoring');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
const rules: Rule[] = readdirSync(join(MONITORING, 'rules'))
  .filter((f) => f.endsWith('.yml'))
  .flatMap((f) => (parse(readFileSync(join(MONITORING, 'rules', f), 'utf8')) as { groups: { rules: Rule[] }[] }).groups)
  .flatMap((g) => g.rules);

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(join(MONITORING, 'grafana/scene-studio-fleet.json'), 'utf8')) as {
  panels: Panel[];
  templating: { list: { name: string }[] };
};

/**
 * Grafana's variables as a user who picked "All" gets them. `$__rate_interval` is Grafana's own
 * (at least four scrape intervals); 5 minutes covers the whole traffic of this file.
 */
const VARIABLES: Record<string, string> = { __rate_interval: '5m', namespace: '.*', organization: '.*' };

function resolveVariables(expr: string): string {
  const resolved = expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => VARIABLES[name] ?? whole);
  if (/\$/.test(resolved)) throw new Error(`a Grafana variable this test does not know in ${expr}`);
  return resolved;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** The vector selectors of a PromQL expression: each metric name with the label names it matches on. */
function selectors(expr: string): { name: string; labels: string[] }[] {
  const found: { name: string; labels: string[] }[] = [];
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const selector = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g;
  for (const m of text.matchAll(selector)) {
    const [, name, matchers, call] = m;
    const before = text[m.index - 1];
    if (call || KEYWORDS.has(name) || /[\d.]/.test(before ?? '') || /^\d/.test(name)) continue;
    const labels = [...(matchers ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]);
    found.push({ name, labels });
  }
  return found;
}

const RATE_LIMITED_RETRY_S = 1;

describe('monitoring against a real Prometheus scraping running processes', () => {
  let fake: FakeWorldLabs;
  let healthy: WebhookReceiver;
  let failing: WebhookReceiver;
  beforeAll(async () => {
    fake = await FakeWorldLabs.start({ jobDurationMs: 300 });
    healthy = await WebhookReceiver.start();
    failing = await WebhookReceiver.start();
    failing.answer = () => 500;
  });
  afterAll(async () => {
    await fake?.close();
    await healthy?.close();
    await failing?.close();
  });

  const suite = setUpSuite(() => ({
    studio: {},
    worker: {
      config: fake.workerConfig({
        GENERATION_BACKOFF_MS: '100',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200,200,200,200',
      }),
    },
  }));

  let ops: RunningOpsServer[] = [];
  let prometheus: PrometheusServer;
  beforeAll(async () => {
    ops = [await startOps(suite.api.app), await startOps(suite.studio.app), await startOps(suite.worker)];
    const [api, studio, worker] = ops.map((o) => o.url.replace('http://', ''));
    prometheus = await PrometheusServer.start({ api, studio, worker });
  });
  afterAll(async () => {
    await prometheus?.stop();
    for (const o of ops) await o.close();
  });

  /** Waits until Prometheus's latest evaluation of `expr` returns something. */
  const seen = (expr: string, what: string) =>
    pollUntil(
      () => prometheus.query(expr),
      (r) => r.length > 0,
      { timeoutMs: 30_000, intervalMs: 250, what },
    );

  it('scrapes the api, the studio and the worker, each labelled with its component', async () => {
    const up = await pollUntil(
      () => prometheus.query('up'),
      (r) => r.length === 3 && r.every((s) => s.value[1] === '1'),
      { timeoutMs: 30_000, intervalMs: 250, what: 'three targets up' },
    );
    expect(up.map((s) => [s.metric.job, s.metric.component]).sort()).toEqual([
      ['scene-studio-api', 'api'],
      ['scene-studio-studio', 'studio'],
      ['scene-studio-worker', 'worker'],
    ]);
    // Every exposition parsed (a malformed line would fail the whole scrape).
    const { activeTargets } = await prometheus.api<{ activeTargets: { health: string; lastError: string; scrapeUrl: string }[] }>(
      'targets',
    );
    expect(activeTargets.map((t) => [t.health, t.lastError])).toEqual([
      ['up', ''],
      ['up', ''],
      ['up', ''],
    ]);
    expect(activeTargets.map((t) => new URL(t.scrapeUrl).pathname)).toEqual(['/metrics', '/metrics', '/metrics']);
  });

  it('after real traffic, every dashboard panel, every recording rule and every name an alert reads has data', async () => {
    const org = suite.org;
    // Webhooks: one endpoint that takes them, one that answers 500 to everything.
    for (const receiver of [healthy, failing]) {
      const res = await suite.api
        .http()
        .post('/v1/webhook-endpoints')
        .set(org.auth)
        .send({ url: receiver.url, events: ['operation.succeeded', 'operation.failed', 'embed_session.ended'] });
      expect(res.status).toBe(201);
    }
    await uploadImage(suite.api, org, 640, 480);

    // A scene created to success, at the provider.
    const ok = await createScene(suite.api, org, { prompt: 'A lighthouse on a cliff at dusk' });
    const done = await awaitOperation(suite.api, org, ok.body.operationId);
    expect(done.body.status).toBe('succeeded');

    // One the provider fails.
    fake.behaviour = 'job-fails';
    const bad = await createScene(suite.api, org, { prompt: 'A desert canyon at noon' });
    expect((await awaitOperation(suite.api, org, bad.body.operationId)).body).toMatchObject({ status: 'failed' });

    // One the provider throttles first (429 with Retry-After), then takes.
    fake.behaviour = 'rate-limited';
    fake.retryAfterSeconds = RATE_LIMITED_RETRY_S;
    const attempts = fake.generateAttempts.length;
    const throttled = await createScene(suite.api, org, { prompt: 'A snowy pass at dawn' });
    await pollUntil(
      () => Promise.resolve(fake.generateAttempts.length),
      (n) => n > attempts,
      { what: 'the provider to refuse a start' },
    );
    fake.behaviour = 'success';
    expect((await awaitOperation(suite.api, org, throttled.body.operationId)).body.status).toBe('succeeded');

    // An embed session, its studio, its event stream, and its revocation seen on the stream.
    const session = await createEmbedSession(suite.api, org, { sceneId: done.body.sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    expect(session.status).toBe(201);
    const bearer = { Authorization: `Bearer ${new URL(session.body.url).hash.slice(1)}` };
    expect((await suite.studio.http().get('/studio-api/v1/session').set(bearer)).status).toBe(200);
    const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, bearer);
    try {
      await stream.next('scene.status');
      await seen('studio_event_streams_open > 0', 'the open stream on /metrics');
      expect((await suite.api.http().delete(`/v1/embed-sessions/${session.body.embedSessionId}`).set(org.auth)).status).toBe(204);
      expect((await stream.next('session.ended', 5000)).data).toEqual({ reason: 'revoked' });
    } finally {
      stream.close();
    }

    // What the traffic must have left in Prometheus before the checks below mean anything.
    await seen('studio_session_end_lag_seconds_count{reason="revoked"} > 0', 'the revocation lag');
    await seen('generations_finished_total{provider="worldlabs", outcome="failed", code="generation_failed"} > 0', 'the failed generation');
    await seen('generation_throttled_total{source="provider"} > 0', 'the throttled start');
    await seen('webhook_delivery_attempts_total{result="delivered"} > 0', 'a delivered webhook');
    await seen('webhook_delivery_attempts_total{result="http_status"} > 0', 'a refused webhook');
    await seen('webhook_endpoints{state="failing"} > 0', 'the failing endpoint');
    await seen('tenant_generations_started_today > 0', 'the day’s usage');
    // The route templates the objectives leave out, as the processes label them.
    await seen(
      'http_request_duration_seconds_count{component="api", method="POST", route="/v1/image-assets", status_code="201"}',
      'the upload',
    );
    await seen('http_request_duration_seconds_count{component="studio", route="/studio-api/v1/events"}', 'the event stream');
    // And the rules evaluated since (every second): each recorded series is there.
    const recording = rules.filter((r) => r.record);
    for (const r of recording) await seen(r.record!, `the recorded series ${r.record}`);

    const empty: string[] = [];
    const check = async (what: string, expr: string) => {
      const result: Sample[] = await prometheus.query(expr).catch((e: Error) => {
        empty.push(`${what}: ${e.message}`);
        return [{ metric: {}, value: [0, ''] } as Sample];
      });
      if (result.length === 0) empty.push(`${what}: ${expr}`);
    };

    // Every panel of the dashboard, with Grafana's variables as "All" sets them.
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(30);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'namespace', 'organization']);
    for (const p of panels) {
      expect({ panel: p.title, targets: p.targets?.length ?? 0 }).toEqual({ panel: p.title, targets: expect.any(Number) });
      expect(p.targets!.length).toBeGreaterThan(0);
      for (const t of p.targets!) await check(`panel "${p.title}"`, resolveVariables(t.expr));
    }

    // Every recording rule's expression (the series Prometheus recorded from each are there, above).
    for (const r of recording) await check(`recording rule ${r.record}`, r.expr);

    // Every alert: Prometheus evaluates it without error, and every metric it reads exists with
    // every label it matches on (`namespace` is Kubernetes', absent here). Most alerts are rightly
    // quiet, so their expressions cannot be asked for data; their names and labels can.
    const names = new Set(await prometheus.api<string[]>('label/__name__/values'));
    const labelsOf = new Map<string, Set<string>>();
    for (const a of rules.filter((r) => r.alert)) {
      await check(`alert ${a.alert} (count of the expression, which must evaluate)`, `count(${a.expr}) or vector(0)`);
      for (const s of selectors(a.expr)) {
        if (!names.has(s.name)) {
          empty.push(`alert ${a.alert}: no series named ${s.name}`);
          continue;
        }
        if (!labelsOf.has(s.name)) {
          const series = await prometheus.api<Record<string, string>[]>('series', { 'match[]': s.name });
          labelsOf.set(s.name, new Set(series.flatMap((x) => Object.keys(x))));
        }
        for (const l of s.labels.filter((x) => x !== 'namespace' && !labelsOf.get(s.name)!.has(x))) {
          empty.push(`alert ${a.alert}: ${s.name} has no label ${l}`);
        }
      }
    }
    expect(empty).toEqual([]);

    // Prometheus itself found nothing wrong with any rule.
    const { groups } = await prometheus.api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>('rules');
    const unhealthy = groups.flatMap((g) => g.rules).filter((r) => r.health !== 'ok');
    expect(unhealthy).toEqual([]);
    expect(groups.flatMap((g) => g.rules)).toHaveLength(rules.length);
  });

  it('the selector reader finds the names and labels a typo would break (so the check above can fail)', () => {
    expect(
      selectors(
        'sum by (namespace, provider) (rate(generation_throttled_totl{source="provider", provder!~"x"}[10m])) > 0 and on (namespace) scene_studio:generations_waiting:max > 0',
      ),
    ).toEqual([
      { name: 'generation_throttled_totl', labels: ['source', 'provder'] },
      { name: 'scene_studio:generations_waiting:max', labels: [] },
    ]);
    expect(selectors('histogram_quantile(0.99, sum by (le) (rate(x_bucket{le="0.5"}[5m]))) > (14.4 * 0.001)')).toEqual([
      { name: 'x_bucket', labels: ['le'] },
    ]);
    expect(() => resolveVariables('rate(x[$__interval])')).toThrow(/variable/);
  });
});
