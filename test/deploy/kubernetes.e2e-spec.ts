import { MAINTENANCE_QUEUE } from '@app/core';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT, run } from '../support/processes';
import { SCENES_QUEUE } from '@app/operations';

type Doc = Record<string, any>;
interface Values {
  name: string;
  namespace: string;
  queuePrefix: string;
  existingSecret: string;
  postgres: { connectionBudget: number; reservedConnections: number };
  worker: { concurrency: number; minReplicas: number; maxReplicas: number };
  api: { maxReplicas: number };
  studio: { maxReplicas: number; targetMemoryPercent: number };
}
const renderer = require('../../deploy/kubernetes/render.js') as {
  render(v: Values): string;
  loadValues(path?: string): Values;
  merge(a: unknown, b: unknown): Values;
  ruleGroups(): Doc[];
  connectionPlan(v: Values): {
    pools: Record<'api' | 'studio' | 'worker', number>;
    pods: Record<'api' | 'studio' | 'worker', number>;
    total: number;
  };
};

const parse = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJS() as Doc);

/**
 * The schema of a document's kind, from npm packages that ship them (no network at test time):
 * kubernetes-models (the Kubernetes API's OpenAPI schemas), @kubernetes-models/keda and
 * @kubernetes-models/prometheus-operator (the CRDs' schemas).
 */
function validate(doc: Doc): void {
  const [group, version] = String(doc.apiVersion).includes('/') ? String(doc.apiVersion).split('/') : [null, doc.apiVersion];
  const path =
    group === 'keda.sh'
      ? `@kubernetes-models/keda/keda.sh/${version}/${doc.kind}`
      : group === 'monitoring.coreos.com'
        ? `@kubernetes-models/prometheus-operator/monitoring.coreos.com/${version}/${doc.kind}`
        : `kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`;
  const Model = (require(path) as Record<string, new (d: Doc) => { validate(): void }>)[doc.kind];
  new Model(doc).validate();
}

describe('the Kubernetes manifests (deploy/kubernetes)', () => {
  const values = renderer.loadValues();
  const rendered = renderer.render(values);
  const docs = parse(rendered);
  const find = (kind: string, name: string) => {
    const d = docs.find((x) => x.kind === kind && x.metadata.name === name);
    if (!d) throw new Error(`no ${kind} ${name}`);
    return d;
  };
  const deployments = ['api', 'studio', 'worker'].map((c) => find('Deployment', `scene-studio-${c}`));

  it('are committed as rendered from values.json', () => {
    expect(readFileSync(join(ROOT, 'deploy/kubernetes/scene-studio.yaml'), 'utf8')).toBe(rendered);
  });

  it('validate against the Kubernetes, KEDA and prometheus-operator schemas', () => {
    expect(docs.map((d) => d.kind).sort()).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'HorizontalPodAutoscaler',
        'Job',
        'PodDisruptionBudget',
        'PodDisruptionBudget',
        'PodDisruptionBudget',
        'PrometheusRule',
        'ScaledObject',
        'Service',
        'Service',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
        'TriggerAuthentication',
      ].sort(),
    );
    for (const doc of docs) expect(() => validate(doc)).not.toThrow();
  });

  it('the validator rejects what the API server would (so the test above can fail)', () => {
    const broken = structuredClone(find('Deployment', 'scene-studio-api'));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    expect(() => validate(broken)).toThrow();
    const scaled = structuredClone(find('ScaledObject', 'scene-studio-worker'));
    scaled.spec.minReplicaCount = 'one';
    expect(() => validate(scaled)).toThrow();
    const rule = structuredClone(find('PrometheusRule', 'scene-studio'));
    rule.spec.groups[0].rules[0].for = 5;
    expect(() => validate(rule)).toThrow();
  });

  describe('monitoring with the Prometheus Operator', () => {
    const ops = (component: string) => find('Deployment', `scene-studio-${component}`).spec.template.spec.containers[0].ports;

    it("a ServiceMonitor scrapes /metrics on every Service's ops port and labels each target with its component", () => {
      const monitor = find('ServiceMonitor', 'scene-studio');
      expect(monitor.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/part-of': values.name });
      expect(monitor.spec.namespaceSelector).toEqual({ matchNames: [values.namespace] });
      expect(monitor.spec.endpoints).toEqual([
        {
          port: 'ops',
          path: '/metrics',
          interval: '30s',
          relabelings: [
            { sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_component'], targetLabel: 'component', action: 'replace' },
          ],
        },
      ]);
      // Every Service it selects has the ops port, and carries the component the relabeling reads.
      for (const c of ['api', 'studio', 'worker']) {
        const svc = find('Service', `scene-studio-${c}`);
        expect(svc.metadata.labels['app.kubernetes.io/part-of']).toBe(values.name);
        expect(svc.metadata.labels['app.kubernetes.io/component']).toBe(c);
        expect(svc.spec.ports.find((p: Doc) => p.name === 'ops')?.targetPort).toBe('ops');
        expect(ops(c).find((p: Doc) => p.name === 'ops')).toBeDefined();
      }
    });

    it('or a PodMonitor, which scrapes the pods directly (never both: every process would be scraped twice)', () => {
      const podDocs = parse(renderer.render(renderer.merge(values, { serviceMonitor: { enabled: false }, podMonitor: { enabled: true } })));
      expect(podDocs.filter((d) => d.kind === 'ServiceMonitor')).toEqual([]);
      const monitor = podDocs.find((d) => d.kind === 'PodMonitor')!;
      expect(() => validate(monitor)).not.toThrow();
      expect(monitor.spec.podMetricsEndpoints).toEqual([
        {
          port: 'ops',
          path: '/metrics',
          interval: '30s',
          relabelings: [
            { sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'], targetLabel: 'component', action: 'replace' },
          ],
        },
      ]);
      // The pods it selects: the three long-running processes, not the migration Job's.
      const selects = (labels: Record<string, string>) =>
        Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => labels[k] === v) &&
        monitor.spec.selector.matchExpressions.every((e: Doc) => e.values.includes(labels[e.key]));
      const pods = podDocs.filter((d) => d.spec?.template?.metadata?.labels).map((d) => [d.kind, selects(d.spec.template.metadata.labels)]);
      expect(pods).toEqual([
        ['Job', false],
        ['Deployment', true],
        ['Deployment', true],
        ['Deployment', true],
      ]);
      expect(() => renderer.render(renderer.merge(values, { podMonitor: { enabled: true } }))).toThrow(/twice/);
    });

    it('a PrometheusRule carries the rules of deploy/monitoring/rules, and the labels a Prometheus selects rules by', () => {
      const rule = find('PrometheusRule', 'scene-studio');
      expect(rule.spec.groups).toEqual(renderer.ruleGroups());
      const names = rule.spec.groups.flatMap((g: Doc) => g.rules.map((r: Doc) => r.alert ?? r.record));
      expect(names).toEqual(expect.arrayContaining(['SceneStudioApiErrorBudgetBurnFast', 'scene_studio:api_request_errors:ratio_rate5m']));
      const labelled = parse(renderer.render(renderer.merge(values, { prometheusRule: { labels: { release: 'kube-prometheus-stack' } } })));
      expect(labelled.find((d) => d.kind === 'PrometheusRule')!.metadata.labels).toMatchObject({
        release: 'kube-prometheus-stack',
        'app.kubernetes.io/part-of': values.name,
      });
      const off = parse(
        renderer.render(renderer.merge(values, { prometheusRule: { enabled: false }, serviceMonitor: { enabled: false } })),
      );
      expect(off.filter((d) => d.apiVersion.startsWith('monitoring.coreos.com/'))).toEqual([]);
    });
  });

  it('probe readiness on /readyz and liveness on /healthz, on the ops port, with requests and limits', () => {
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
      expect(c.ports.find((p: Doc) => p.name === 'ops')).toBeDefined();
      expect(Object.keys(c.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(c.resources.limits).sort()).toEqual(['cpu', 'memory']);
      expect(c.envFrom).toContainEqual({ secretRef: { name: values.existingSecret } });
      // Above SHUTDOWN_TIMEOUT_SECONDS (25), so a stopping pod drains before it is killed.
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(25);
      expect(find('PodDisruptionBudget', d.metadata.name).spec.selector).toEqual(d.spec.selector);
    }
    // Secrets come from an existing Secret, never from these files.
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
  });

  it('scale api and studio on CPU, and workers with KEDA on the BullMQ wait lists, never below one', () => {
    for (const c of ['api', 'studio']) {
      const hpa = find('HorizontalPodAutoscaler', `scene-studio-${c}`);
      expect(hpa.spec.scaleTargetRef.name).toBe(`scene-studio-${c}`);
      expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
      expect(find('Deployment', `scene-studio-${c}`).spec.replicas).toBeUndefined();
    }
    // Open studio pages cost the studio memory and hardly any CPU: it scales on both.
    expect(find('HorizontalPodAutoscaler', 'scene-studio-studio').spec.metrics[1]).toEqual({
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: values.studio.targetMemoryPercent } },
    });
    expect(find('HorizontalPodAutoscaler', 'scene-studio-api').spec.metrics).toHaveLength(1);
    const scaled = find('ScaledObject', 'scene-studio-worker');
    expect(scaled.spec.scaleTargetRef.name).toBe('scene-studio-worker');
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    const concurrency = find('ConfigMap', 'scene-studio-config').data.WORKER_CONCURRENCY;
    expect(scaled.spec.triggers.slice(0, 2).map((t: Doc) => [t.type, t.metadata.listName, t.metadata.listLength])).toEqual([
      ['redis', `${values.queuePrefix}:${SCENES_QUEUE}:wait`, concurrency],
      ['redis', `${values.queuePrefix}:${MAINTENANCE_QUEUE}:wait`, concurrency],
    ]);
    // Work waiting for its organization's turn, counted where it waits: the worker's own database.
    expect(scaled.spec.triggers[2]).toEqual({
      type: 'postgresql',
      metadata: {
        connectionFromEnv: 'DATABASE_URL',
        query: expect.stringContaining('admitted_at IS NULL'),
        targetQueryValue: concurrency,
        activationTargetQueryValue: '0',
      },
    });
    expect(() => renderer.render(renderer.merge(values, { worker: { minReplicas: 0 } }))).toThrow(/reconciler/);
  });

  it("names the wait list BullMQ really fills (the KEDA trigger's listName)", async () => {
    const prefix = `ss-k8s-${process.pid}`;
    const connection = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    const queue = new Queue(SCENES_QUEUE, { connection, prefix });
    try {
      await queue.add('scene.generate', { operationId: 'op_x' });
      await queue.add('scene.generate', { operationId: 'op_y' }, { delay: 60_000 });
      const listName = find('ScaledObject', 'scene-studio-worker').spec.triggers[0].metadata.listName.replace(values.queuePrefix, prefix);
      expect(await connection.llen(listName)).toBe(1);
      // The delayed job is not in the list until it is due.
      expect(await connection.zcard(`${prefix}:${SCENES_QUEUE}:delayed`)).toBe(1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it('size each pool from the replica counts within the PostgreSQL connection budget', () => {
    const plan = renderer.connectionPlan(values);
    for (const c of ['api', 'studio', 'worker'] as const) {
      const env = find('Deployment', `scene-studio-${c}`).spec.template.spec.containers[0].env;
      expect(env).toContainEqual({ name: 'DATABASE_POOL_SIZE', value: String(plan.pools[c]) });
    }
    expect(plan.pools.worker).toBeGreaterThanOrEqual(values.worker.concurrency + 1);
    expect(plan.total).toBeLessThanOrEqual(values.postgres.connectionBudget);
    expect(plan.pods.api).toBe(values.api.maxReplicas + 1);
    expect(() => renderer.render(renderer.merge(values, { postgres: { connectionBudget: 40 } }))).toThrow(/too small/);
  });

  it("render from the command line with an operator's values, and refuse a budget too small", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-k8s-'));
    try {
      const mine = join(dir, 'values.json');
      writeFileSync(mine, JSON.stringify({ image: 'registry.acme.example/scene-studio:2.3.4', worker: { concurrency: 2 } }));
      const ok = await run(process.execPath, [join(ROOT, 'deploy/kubernetes/render.js'), mine]);
      expect(ok.code).toBe(0);
      const out = parse(ok.stdout);
      expect(out.find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0].image).toBe(
        'registry.acme.example/scene-studio:2.3.4',
      );
      expect(out.find((d) => d.kind === 'Job')!.metadata.name).toBe('scene-studio-migrate-2-3-4');
      expect(out.find((d) => d.kind === 'ScaledObject')!.spec.triggers[0].metadata.listLength).toBe('2');
      writeFileSync(mine, JSON.stringify({ postgres: { connectionBudget: 30 } }));
      const refused = await run(process.execPath, [join(ROOT, 'deploy/kubernetes/render.js'), mine]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/connectionBudget 30 is too small/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the kustomization applies the committed rendering', () => {
    expect(parse(readFileSync(join(ROOT, 'deploy/kubernetes/kustomization.yaml'), 'utf8'))[0].resources).toEqual(['scene-studio.yaml']);
  });

  it('migrate in a pre-install/pre-upgrade Job running `cli migrate`', () => {
    const job = docs.find((d) => d.kind === 'Job')!;
    expect(job.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job.metadata.annotations['argocd.argoproj.io/hook']).toBe('PreSync');
    expect(job.spec.template.spec.containers[0].command).toEqual(['node', 'dist/apps/cli/src/main.js', 'migrate']);
  });
});
