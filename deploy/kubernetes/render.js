#!/usr/bin/env node
// Renders Scene Studio's Kubernetes manifests from deploy/kubernetes/values.json, optionally
// merged with an operator's values file:
//   npm run --silent k8s:render -- [my-values.json] > scene-studio.yaml
// Plain Node and the `yaml` package rather than a Helm chart: Helm is not installable where this
// project is built and tested, and a renderer in Node can be run and its output validated offline
// by `npm test` (test/deploy/kubernetes.e2e-spec.ts, against the Kubernetes, KEDA and
// prometheus-operator schemas). The output is plain YAML that kubectl, kustomize, Argo CD or a
// Helm chart of one's own can take. docs/operations.md ("Kubernetes") explains every choice.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const YAML = require('yaml');

const PORTS = { api: 3000, studio: 3001, worker: 3002, apiOps: 3003, studioOps: 3004 };
/** Rolling updates add at most one pod per Deployment at a time (maxSurge 1). */
const SURGE = 1;
/** Worker connections beyond its job slots: the reconciler's and admission's lock transactions, and a sweep. */
const WORKER_EXTRA_CONNECTIONS = 3;

/** The recording and alerting rules, shared with plain Prometheus (deploy/monitoring/rules). */
const RULES_DIR = join(__dirname, '..', 'monitoring', 'rules');

/** Every rule group of deploy/monitoring/rules, in file order. */
function ruleGroups() {
  return readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .flatMap((f) => YAML.parse(readFileSync(join(RULES_DIR, f), 'utf8')).groups);
}

/** Generations accepted and waiting for their organization's turn (libs/operations, GenerationAdmission). */
const WAITING_FOR_ADMISSION = "SELECT count(*) FROM operations WHERE status = 'processing' AND admitted_at IS NULL";

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(base, over) {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
  return out;
}

function loadValues(overridePath) {
  const defaults = JSON.parse(readFileSync(join(__dirname, 'values.json'), 'utf8'));
  return overridePath ? merge(defaults, JSON.parse(readFileSync(overridePath, 'utf8'))) : defaults;
}

/**
 * PostgreSQL connections per process, from the replica counts: every pod that can exist at once
 * (the maximum replicas plus one surging pod per Deployment) times its pool, plus the reserve
 * (the migration Job, an operator's CLI), must fit the budget (max_connections less superuser
 * slots, or PgBouncer's server pool). The worker needs one connection per job slot plus
 * WORKER_EXTRA_CONNECTIONS; api and studio split what is left, up to their `maxPoolSize`.
 */
function connectionPlan(v) {
  const pods = {
    api: v.api.maxReplicas + SURGE,
    studio: v.studio.maxReplicas + SURGE,
    worker: v.worker.maxReplicas + SURGE,
  };
  const worker = v.worker.concurrency + WORKER_EXTRA_CONNECTIONS;
  const left = v.postgres.connectionBudget - v.postgres.reservedConnections - pods.worker * worker;
  const share = Math.floor(left / (pods.api + pods.studio));
  const api = Math.min(v.api.maxPoolSize, share);
  const studio = Math.min(v.studio.maxPoolSize, share);
  if (api < 2 || studio < 2) {
    throw new Error(
      `postgres.connectionBudget ${v.postgres.connectionBudget} is too small for these replica counts: ` +
        `${pods.worker} worker pods × ${worker} leave ${left} connections for ${pods.api + pods.studio} api and studio pods ` +
        '(each needs at least 2). Raise the budget (or put PgBouncer in front), or lower maxReplicas.',
    );
  }
  const total = pods.api * api + pods.studio * studio + pods.worker * worker + v.postgres.reservedConnections;
  return { pools: { api, studio, worker }, pods, total };
}

function render(v) {
  const plan = connectionPlan(v);
  const ns = v.namespace;
  const part = { 'app.kubernetes.io/part-of': v.name, 'app.kubernetes.io/name': v.name };
  const labels = (component) => ({ ...part, 'app.kubernetes.io/component': component });
  const selector = (component) => ({ 'app.kubernetes.io/name': v.name, 'app.kubernetes.io/component': component });
  const meta = (name, component, extra = {}) => ({ name, namespace: ns, labels: labels(component), ...extra });
  const configName = `${v.name}-config`;

  const envFrom = [{ configMapRef: { name: configName } }, { secretRef: { name: v.existingSecret } }];
  const podSecurity = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } };
  const containerSecurity = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
  // sharp and Node may write temporary files; the root filesystem is read-only.
  const tmp = { volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '256Mi' } }], mounts: [{ name: 'tmp', mountPath: '/tmp' }] };

  function container(component, { command, ports, opsPort, pool, resources }) {
    const probe = (path, extra) => ({ httpGet: { path, port: 'ops' }, ...extra });
    return {
      name: component,
      image: v.image,
      imagePullPolicy: v.imagePullPolicy,
      command: ['node', command],
      envFrom,
      // Derived from the replica counts (connectionPlan); wins over the ConfigMap.
      env: [{ name: 'DATABASE_POOL_SIZE', value: String(pool) }],
      ports: [...ports, { name: 'ops', containerPort: opsPort, protocol: 'TCP' }],
      // Ready when PostgreSQL and Redis answer; alive while the process answers at all, so a
      // database outage takes pods out of rotation without restarting every one of them.
      readinessProbe: probe('/readyz', { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 }),
      livenessProbe: probe('/healthz', { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 6 }),
      startupProbe: probe('/healthz', { periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 30 }),
      // The load balancer takes the pod out before it stops listening (docs/operations.md).
      lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
      resources,
      securityContext: containerSecurity,
      volumeMounts: tmp.mounts,
    };
  }

  function deployment(component, spec, replicas) {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(`${v.name}-${component}`, component),
      spec: {
        // No `replicas` when an autoscaler owns the count: re-applying must not reset it.
        ...(replicas === undefined ? {} : { replicas }),
        revisionHistoryLimit: 5,
        selector: { matchLabels: selector(component) },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: SURGE, maxUnavailable: 0 } },
        template: {
          metadata: { labels: labels(component) },
          spec: {
            serviceAccountName: v.name,
            automountServiceAccountToken: false,
            securityContext: podSecurity,
            // SHUTDOWN_TIMEOUT_SECONDS (25) to drain, plus the 5 s preStop pause, plus slack.
            terminationGracePeriodSeconds: 40,
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'kubernetes.io/hostname',
                whenUnsatisfiable: 'ScheduleAnyway',
                labelSelector: { matchLabels: selector(component) },
              },
            ],
            containers: [container(component, spec)],
            volumes: tmp.volumes,
          },
        },
      },
    };
  }

  const service = (component, ports) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(`${v.name}-${component}`, component),
    spec: { type: 'ClusterIP', selector: selector(component), ports },
  });
  const pdb = (component, rule) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(`${v.name}-${component}`, component),
    spec: { ...rule, selector: { matchLabels: selector(component) } },
  });
  const hpa = (component, s) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(`${v.name}-${component}`, component),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${v.name}-${component}` },
      minReplicas: s.minReplicas,
      maxReplicas: s.maxReplicas,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: s.targetCpuPercent } } },
        // The studio's open pages cost memory, hardly any CPU (docs/operations.md, "Sizing").
        ...(s.targetMemoryPercent
          ? [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: s.targetMemoryPercent } } }]
          : []),
      ],
      // Scale down slowly: event streams (studio) and uploads (api) end with their pod.
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    },
  });

  const docs = [];
  docs.push({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: meta(v.name, 'shared'),
    automountServiceAccountToken: false,
  });
  docs.push({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(configName, 'shared'),
    data: {
      NODE_ENV: 'production',
      HOST: '0.0.0.0',
      API_PORT: String(PORTS.api),
      STUDIO_PORT: String(PORTS.studio),
      WORKER_PORT: String(PORTS.worker),
      API_OPS_PORT: String(PORTS.apiOps),
      STUDIO_OPS_PORT: String(PORTS.studioOps),
      PUBLIC_API_URL: v.publicApiUrl,
      PUBLIC_EMBED_ORIGIN: v.publicEmbedOrigin,
      QUEUE_PREFIX: v.queuePrefix,
      WORKER_CONCURRENCY: String(v.worker.concurrency),
      ...Object.fromEntries(Object.entries(v.config).map(([k, val]) => [k, String(val)])),
    },
  });

  // Migrations before anything else of a release: a Helm pre-install/pre-upgrade hook, an Argo CD
  // PreSync hook, or with kubectl the first of two applies (docs/operations.md). Named after the
  // image, so each release runs its own Job (a Job's template cannot change).
  const tag = (v.image.split(/[:@]/).pop() || 'latest')
    .replace(/[^a-z0-9-]/gi, '-')
    .toLowerCase()
    .slice(0, 30);
  docs.push({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(`${v.name}-migrate-${tag}`.replace(/-+$/, ''), 'migrate', {
      annotations: {
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
        'argocd.argoproj.io/hook': 'PreSync',
        'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
      },
    }),
    spec: {
      backoffLimit: 3,
      activeDeadlineSeconds: 600,
      ttlSecondsAfterFinished: 86400,
      template: {
        metadata: { labels: labels('migrate') },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: v.name,
          automountServiceAccountToken: false,
          securityContext: podSecurity,
          containers: [
            {
              name: 'migrate',
              image: v.image,
              imagePullPolicy: v.imagePullPolicy,
              command: ['node', 'dist/apps/cli/src/main.js', 'migrate'],
              envFrom,
              env: [{ name: 'DATABASE_POOL_SIZE', value: '1' }],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
              securityContext: containerSecurity,
              volumeMounts: tmp.mounts,
            },
          ],
          volumes: tmp.volumes,
        },
      },
    },
  });

  docs.push(
    deployment('api', {
      command: 'dist/apps/api/src/main.js',
      ports: [{ name: 'http', containerPort: PORTS.api, protocol: 'TCP' }],
      opsPort: PORTS.apiOps,
      pool: plan.pools.api,
      resources: v.api.resources,
    }),
    deployment('studio', {
      command: 'dist/apps/studio/src/main.js',
      ports: [{ name: 'http', containerPort: PORTS.studio, protocol: 'TCP' }],
      opsPort: PORTS.studioOps,
      pool: plan.pools.studio,
      resources: v.studio.resources,
    }),
    deployment('worker', {
      command: 'dist/apps/worker/src/main.js',
      ports: [],
      opsPort: PORTS.worker,
      pool: plan.pools.worker,
      resources: v.worker.resources,
    }),
  );

  docs.push(
    service('api', [
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' },
      { name: 'ops', port: PORTS.apiOps, targetPort: 'ops', protocol: 'TCP' },
    ]),
    service('studio', [
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' },
      { name: 'ops', port: PORTS.studioOps, targetPort: 'ops', protocol: 'TCP' },
    ]),
    // Only for Prometheus: workers take no traffic.
    service('worker', [{ name: 'ops', port: PORTS.worker, targetPort: 'ops', protocol: 'TCP' }]),
  );

  docs.push(pdb('api', { minAvailable: 1 }), pdb('studio', { minAvailable: 1 }), pdb('worker', { maxUnavailable: 1 }));
  docs.push(hpa('api', v.api), hpa('studio', v.studio));

  // Workers scale on the BullMQ wait lists (`<QUEUE_PREFIX>:<queue>:wait`): one replica per
  // WORKER_CONCURRENCY waiting jobs. Delayed jobs (generations between provider polls, retries)
  // are not counted: they hold no slot until due, when BullMQ moves them to `wait`, where they
  // count. No job here is prioritized, so the `prioritized` set stays empty. Generations waiting
  // for their organization's turn are not on BullMQ at all (fair share admits at most the fleet's
  // slots onto it), so a third trigger counts them where they wait, in PostgreSQL, through the
  // workers' own DATABASE_URL. At least one worker always runs: the reconciler, admission and the
  // repeatable sweeps live in the worker.
  const auth = v.redis.passwordSecretKey ? `${v.name}-redis` : null;
  if (auth) {
    docs.push({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'TriggerAuthentication',
      metadata: meta(auth, 'worker'),
      spec: { secretTargetRef: [{ parameter: 'password', name: v.existingSecret, key: v.redis.passwordSecretKey }] },
    });
  }
  const trigger = (queue) => ({
    type: 'redis',
    metadata: {
      address: v.redis.address,
      listName: `${v.queuePrefix}:${queue}:wait`,
      listLength: String(v.worker.concurrency),
      activationListLength: '0',
    },
    ...(auth ? { authenticationRef: { name: auth } } : {}),
  });
  if (v.worker.minReplicas < 1) throw new Error('worker.minReplicas must be at least 1: the reconciler runs in the worker');
  docs.push({
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: meta(`${v.name}-worker`, 'worker'),
    spec: {
      scaleTargetRef: { name: `${v.name}-worker` },
      minReplicaCount: v.worker.minReplicas,
      maxReplicaCount: v.worker.maxReplicas,
      pollingInterval: v.worker.pollingIntervalSeconds,
      cooldownPeriod: v.worker.cooldownPeriodSeconds,
      triggers: [
        trigger('scenes'),
        trigger('maintenance'),
        {
          type: 'postgresql',
          metadata: {
            connectionFromEnv: 'DATABASE_URL',
            query: WAITING_FOR_ADMISSION,
            targetQueryValue: String(v.worker.concurrency),
            activationTargetQueryValue: '0',
          },
        },
      ],
    },
  });

  // Prometheus Operator: scrape every ops port, through the Services (ServiceMonitor) or the pods
  // (PodMonitor), one or the other. Each target gets `component` (api, studio, worker), which the
  // rules and the dashboard read (deploy/monitoring, docs/operations.md "Monitoring").
  if (v.serviceMonitor.enabled && v.podMonitor.enabled) {
    throw new Error('serviceMonitor and podMonitor would scrape every process twice: enable one of them');
  }
  const monitorMeta = (labels) => ({
    ...meta(v.name, 'shared'),
    labels: { ...labels(), ...part, 'app.kubernetes.io/component': 'shared' },
  });
  const component = (source) => [{ sourceLabels: [source], targetLabel: 'component', action: 'replace' }];
  if (v.serviceMonitor.enabled) {
    docs.push({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: monitorMeta(() => v.serviceMonitor.labels ?? {}),
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/part-of': v.name } },
        namespaceSelector: { matchNames: [ns] },
        endpoints: [
          {
            port: 'ops',
            path: '/metrics',
            interval: v.serviceMonitor.interval,
            relabelings: component('__meta_kubernetes_service_label_app_kubernetes_io_component'),
          },
        ],
      },
    });
  }
  if (v.podMonitor.enabled) {
    docs.push({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: monitorMeta(() => v.podMonitor.labels ?? {}),
      spec: {
        selector: {
          matchLabels: { 'app.kubernetes.io/part-of': v.name },
          matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['api', 'studio', 'worker'] }],
        },
        namespaceSelector: { matchNames: [ns] },
        podMetricsEndpoints: [
          {
            port: 'ops',
            path: '/metrics',
            interval: v.podMonitor.interval,
            relabelings: component('__meta_kubernetes_pod_label_app_kubernetes_io_component'),
          },
        ],
      },
    });
  }
  // The same rules as plain Prometheus loads from deploy/monitoring/rules.
  if (v.prometheusRule.enabled) {
    docs.push({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: monitorMeta(() => v.prometheusRule.labels ?? {}),
      spec: { groups: ruleGroups() },
    });
  }

  const header = [
    `# Rendered by deploy/kubernetes/render.js; do not edit: change values and render again.`,
    `# PostgreSQL connections at most: ${plan.total} of a budget of ${v.postgres.connectionBudget}`,
    `#   api ${plan.pods.api} pods × ${plan.pools.api}, studio ${plan.pods.studio} × ${plan.pools.studio}, ` +
      `worker ${plan.pods.worker} × ${plan.pools.worker}, reserved ${v.postgres.reservedConnections}`,
  ].join('\n');
  return `${header}\n${docs.map((d) => YAML.stringify(d, { lineWidth: 0 })).join('---\n')}`;
}

module.exports = { render, loadValues, connectionPlan, merge, ruleGroups };

if (require.main === module) {
  try {
    process.stdout.write(render(loadValues(process.argv[2])));
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
