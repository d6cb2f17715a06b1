#!/usr/bin/env node
// Renders the Grafana dashboard of the Scene Studio fleet (scene-studio-fleet.json beside this
// file): node deploy/monitoring/grafana/dashboard.js > deploy/monitoring/grafana/scene-studio-fleet.json
// The panels are written here, compactly, rather than edited as a thousand lines of JSON; `npm test`
// checks that the committed JSON is this rendering (test/deploy/monitoring.e2e-spec.ts) and that
// every panel's query returns data from a real Prometheus scraping running processes
// (test/deploy/monitoring-live.e2e-spec.ts). Import the JSON in Grafana (docs/operations.md,
// "Monitoring"); it asks for nothing: its data source is a variable.
'use strict';

const DS = { type: 'prometheus', uid: '${datasource}' };
/** Every query is limited to the chosen installation (Kubernetes namespace; none elsewhere). */
const NS = 'namespace=~"$namespace"';
const API = `component="api", ${NS}, route!~"/healthz|/readyz"`;
const STUDIO = `component="studio", ${NS}, route!~"/healthz|/readyz"`;
const PROCESSES = `component=~"api|studio|worker", ${NS}`;
const RATE = '$__rate_interval';

/** A time series panel: [expr, legend] pairs, a unit, optional threshold lines. */
function ts(title, description, unit, targets, extra = {}) {
  return { type: 'timeseries', title, description, unit, targets, ...extra };
}

const rows = [
  {
    title: 'Partner API (api)',
    panels: [
      ts('Requests by route', 'Partner API requests per second, by route template (probes left out).', 'reqps', [
        [`sum by (route) (rate(http_request_duration_seconds_count{${API}}[${RATE}]))`, '{{route}}'],
      ]),
      ts('Responses by status code', 'Partner API answers per second, by status code.', 'reqps', [
        [`sum by (status_code) (rate(http_request_duration_seconds_count{${API}}[${RATE}]))`, '{{status_code}}'],
      ]),
      ts('Errors: share of 5xx by route', 'The share of each route’s answers that were 5xx (503 in an outage included).', 'percentunit', [
        [
          `(sum by (route) (rate(http_request_duration_seconds_count{${API}, status_code=~"5.."}[${RATE}])) or sum by (route) (rate(http_request_duration_seconds_count{${API}}[${RATE}])) * 0) / sum by (route) (rate(http_request_duration_seconds_count{${API}}[${RATE}]))`,
          '{{route}}',
        ],
      ]),
      ts('Latency p95 by route', '95th percentile of the time to answer, by route.', 's', [
        [`histogram_quantile(0.95, sum by (route, le) (rate(http_request_duration_seconds_bucket{${API}}[${RATE}])))`, '{{route}}'],
      ]),
      ts('Latency of all requests', 'Percentiles of the time to answer, every route together.', 's', [
        [`histogram_quantile(0.5, sum by (le) (rate(http_request_duration_seconds_bucket{${API}}[${RATE}])))`, 'p50'],
        [`histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket{${API}}[${RATE}])))`, 'p95'],
        [`histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{${API}}[${RATE}])))`, 'p99'],
      ]),
      ts(
        'Availability objective: error budget burn rate',
        'How fast 5xx answers spend the error budget (objective 99.9 %): 1 is the rate that spends it in 30 days. Paged at 14.4 (1 h and 5 min) and 6 (6 h and 30 min).',
        'x',
        [
          [`scene_studio:api_request_errors:ratio_rate5m{${NS}} / 0.001`, '5 min'],
          [`scene_studio:api_request_errors:ratio_rate30m{${NS}} / 0.001`, '30 min'],
          [`scene_studio:api_request_errors:ratio_rate1h{${NS}} / 0.001`, '1 h'],
          [`scene_studio:api_request_errors:ratio_rate6h{${NS}} / 0.001`, '6 h'],
        ],
        { thresholds: [6, 14.4] },
      ),
      ts(
        'Latency objective: budget burn rate',
        'How fast requests slower than 0.5 s (uploads excepted) spend the latency budget (objective 99 %): 1 spends it in 30 days. Paged at 14.4 and 6.',
        'x',
        [
          [`scene_studio:api_request_slow:ratio_rate5m{${NS}} / 0.01`, '5 min'],
          [`scene_studio:api_request_slow:ratio_rate30m{${NS}} / 0.01`, '30 min'],
          [`scene_studio:api_request_slow:ratio_rate1h{${NS}} / 0.01`, '1 h'],
          [`scene_studio:api_request_slow:ratio_rate6h{${NS}} / 0.01`, '6 h'],
        ],
        { thresholds: [6, 14.4] },
      ),
      ts('Uploads', 'Upload slots in use and uploads waiting for one, all api processes.', 'short', [
        [`sum(upload_slots_in_use{${NS}})`, 'in use'],
        [`sum(uploads_waiting{${NS}})`, 'waiting'],
      ]),
    ],
  },
  {
    title: 'Generations',
    panels: [
      ts(
        'In progress by stage',
        'Generations and edits processing, by the stage partners see (every worker reports the same: max).',
        'short',
        [[`max by (stage) (generations_in_progress{${NS}})`, '{{stage}}']],
      ),
      ts('Ended by provider and outcome', 'Generations the workers ended per second.', 'ops', [
        [`sum by (provider, outcome) (rate(generations_finished_total{${NS}}[${RATE}]))`, '{{provider}} {{outcome}}'],
      ]),
      ts(
        'Failure ratio by provider (15 min)',
        'The share of ended generations that failed, deleted scenes left out. Alerted above 10 %.',
        'percentunit',
        [[`scene_studio:generation_failures:ratio_rate15m{${NS}}`, '{{provider}}']],
        { thresholds: [0.1] },
      ),
      ts('Failures by code', 'Failed generations per second, by provider and safe error code.', 'ops', [
        [`sum by (provider, code) (rate(generations_finished_total{${NS}, outcome="failed"}[${RATE}]))`, '{{provider}} {{code}}'],
      ]),
      ts(
        'Starts held back',
        'Starts held back per second: by the provider (429, every worker pauses) or by the fleet’s start limit (GENERATION_PROVIDER_RATE or a pause in force).',
        'ops',
        [[`sum by (provider, source) (rate(generation_throttled_total{${NS}}[${RATE}]))`, '{{provider}} {{source}}']],
      ),
      ts('Job duration p95 by job', 'How long one run of a job takes (a generation runs many times: submit, polls, fetch).', 's', [
        [
          `histogram_quantile(0.95, sum by (name, le) (rate(job_duration_seconds_bucket{${NS}, outcome="completed"}[${RATE}])))`,
          '{{name}}',
        ],
      ]),
      ts(
        'Jobs by queue and state',
        'BullMQ jobs (every worker reports the same: max). Waiting generations are mostly in PostgreSQL, below.',
        'short',
        [[`max by (queue, state) (queue_jobs{${NS}})`, '{{queue}} {{state}}']],
      ),
    ],
  },
  {
    title: 'Backlog per organization',
    panels: [
      ts(
        'Waiting generations by organization',
        'Generations not started yet (stage queued): the 20 largest backlogs, the rest as other.',
        'short',
        [[`max by (organization) (generations_waiting{${NS}, organization=~"$organization"})`, '{{organization}}']],
      ),
      ts(
        'Oldest waiting generation by organization',
        'How long each organization’s oldest generation not started yet has waited: the 20 longest, the rest as other. at_limit=true: it waits for its own maxConcurrentGenerations.',
        's',
        [
          [
            `max by (organization, at_limit) (generation_oldest_waiting_seconds{${NS}, organization=~"$organization"})`,
            '{{organization}} at_limit={{at_limit}}',
          ],
        ],
      ),
      ts(
        'Oldest waiting generation',
        'Of all organizations, and of those below their limit (what waits for the fleet or the provider). Paged above 15 min.',
        's',
        [
          [`scene_studio:generation_oldest_waiting_seconds:max{${NS}}`, 'all'],
          [`scene_studio:generation_oldest_waiting_below_limit_seconds:max{${NS}}`, 'below their limit'],
        ],
        { thresholds: [900] },
      ),
      ts(
        'Generations started today',
        'Creations and edits started today (UTC), the 20 busiest organizations and the rest as other.',
        'short',
        [[`max by (organization) (tenant_generations_started_today{${NS}, organization=~"$organization"})`, '{{organization}}']],
      ),
    ],
  },
  {
    title: 'Webhooks',
    panels: [
      ts('Delivery attempts by result', 'Webhook delivery attempts per second.', 'ops', [
        [`sum by (result) (rate(webhook_delivery_attempts_total{${NS}}[${RATE}]))`, '{{result}}'],
      ]),
      ts(
        'Endpoints by health',
        'Live endpoints: healthy, failing (their last attempts failed), disabled after failing, disabled by their partner.',
        'short',
        [[`max by (state) (webhook_endpoints{${NS}})`, '{{state}}']],
      ),
      ts(
        'Oldest due delivery',
        'How long the oldest due delivery has waited for a worker; deliveries normally leave within a second. Paged above 5 min.',
        's',
        [[`max(webhook_oldest_due_delivery_seconds{${NS}})`, 'oldest due']],
        { thresholds: [300] },
      ),
      ts('Endpoints disabled (last hour)', 'Endpoints the dispatchers disabled after WEBHOOK_DISABLE_AFTER_SECONDS of failures.', 'short', [
        [`sum(increase(webhook_endpoints_disabled_total{${NS}}[1h]))`, 'disabled'],
      ]),
    ],
  },
  {
    title: 'Studio',
    panels: [
      ts('Open event streams', 'Event streams each studio process holds open (one per open studio page).', 'short', [
        [`sum by (instance) (studio_event_streams_open{${NS}})`, '{{instance}}'],
      ]),
      ts('Events sent by type', 'Events written to open studio pages per second.', 'ops', [
        [`sum by (type) (rate(studio_events_sent_total{${NS}}[${RATE}]))`, '{{type}}'],
      ]),
      ts(
        'session.ended lag p99 (10 min)',
        'From a session ending (its revoking commit, or its expiry) to its session.ended written on an open stream. Revocations paged above 5 s.',
        's',
        [[`scene_studio:studio_session_end_lag_seconds:p99_rate10m{${NS}}`, '{{reason}}']],
        { thresholds: [5] },
      ),
      ts('Studio requests by route', 'Studio API and page requests per second, by route.', 'reqps', [
        [`sum by (route) (rate(http_request_duration_seconds_count{${STUDIO}}[${RATE}]))`, '{{route}}'],
      ]),
      ts(
        'Studio latency p95 by route',
        '95th percentile of the time to answer, event streams (which last as long as the page) left out.',
        's',
        [
          [
            `histogram_quantile(0.95, sum by (route, le) (rate(http_request_duration_seconds_bucket{${STUDIO}, route!="/studio-api/v1/events"}[${RATE}])))`,
            '{{route}}',
          ],
        ],
      ),
    ],
  },
  {
    title: 'Processes',
    panels: [
      ts('Resident memory', 'Resident set size of each process.', 'bytes', [
        [`process_resident_memory_bytes{${PROCESSES}}`, '{{component}} {{instance}}'],
      ]),
      ts('V8 heap used', 'JavaScript heap in use of each process.', 'bytes', [
        [`nodejs_heap_size_used_bytes{${PROCESSES}}`, '{{component}} {{instance}}'],
      ]),
      ts('CPU', 'CPU time per second of each process (1 = one core).', 'short', [
        [`rate(process_cpu_seconds_total{${PROCESSES}}[${RATE}])`, '{{component}} {{instance}}'],
      ]),
      ts('Event loop lag p99', 'How late timers and I/O callbacks run: a busy or blocked process.', 's', [
        [`nodejs_eventloop_lag_p99_seconds{${PROCESSES}}`, '{{component}} {{instance}}'],
      ]),
      ts('Scrape targets up', '1 while Prometheus reaches the process’s ops port.', 'short', [
        [`up{${PROCESSES}}`, '{{component}} {{instance}}'],
      ]),
      ts('Readiness', 'Whether each kind of process reaches PostgreSQL and Redis (the lowest of its processes).', 'short', [
        [`min by (component, dependency) (dependency_up{${PROCESSES}})`, '{{component}} {{dependency}}'],
      ]),
      ts('Restarts in place (1 h)', 'Restarts of a process on the same target: crashes, OOM kills, failed liveness probes.', 'short', [
        [`changes(process_start_time_seconds{${PROCESSES}}[1h])`, '{{component}} {{instance}}'],
      ]),
      ts('Redis circuit breaker', '1 while a process’s request-path Redis circuit is open (docs/operations.md, "Outages").', 'short', [
        [`max by (component, instance) (redis_circuit_open{${PROCESSES}})`, '{{component}} {{instance}}'],
      ]),
      ts('Open connections (public ports)', 'Connections open on the api’s and the studio’s public port.', 'short', [
        [`http_open_connections{${PROCESSES}}`, '{{component}} {{instance}}'],
      ]),
    ],
  },
];

function variable(name, label, query) {
  return {
    type: 'query',
    name,
    label,
    datasource: DS,
    query: { query, refId: `${name}-variable` },
    definition: query,
    refresh: 2,
    includeAll: true,
    allValue: '.*',
    multi: true,
    current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: 1,
  };
}

function panelJson(p, id, gridPos) {
  const steps = [
    { color: 'green', value: null },
    ...(p.thresholds ?? []).map((value, i) => ({ color: i === 0 ? 'orange' : 'red', value })),
  ];
  return {
    id,
    type: p.type,
    title: p.title,
    description: p.description,
    datasource: DS,
    gridPos,
    fieldConfig: {
      defaults: {
        unit: p.unit,
        custom: {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: 10,
          showPoints: 'never',
          ...(p.thresholds ? { thresholdsStyle: { mode: 'line' } } : {}),
        },
        thresholds: { mode: 'absolute', steps },
      },
      overrides: [],
    },
    options: { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets: p.targets.map(([expr, legendFormat], i) => ({ datasource: DS, expr, legendFormat, refId: String.fromCharCode(65 + i) })),
  };
}

function render() {
  const panels = [];
  let id = 1;
  let y = 0;
  for (const row of rows) {
    panels.push({ id: id++, type: 'row', title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    row.panels.forEach((p, i) => {
      panels.push(panelJson(p, id++, { h: 8, w: 8, x: (i % 3) * 8, y: y + Math.floor(i / 3) * 8 }));
    });
    y += Math.ceil(row.panels.length / 3) * 8;
  }
  const dashboard = {
    uid: 'scene-studio-fleet',
    title: 'Scene Studio: fleet',
    description:
      'Traffic, errors and latency of the partner API, generations, backlogs, webhooks, studio streams and processes (deploy/monitoring).',
    tags: ['scene-studio'],
    timezone: 'utc',
    editable: true,
    graphTooltip: 1,
    time: { from: 'now-6h', to: 'now' },
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    templating: {
      list: [
        { type: 'datasource', name: 'datasource', label: 'Data source', query: 'prometheus', current: {}, hide: 0 },
        variable('namespace', 'Namespace', 'label_values(up{component="api"}, namespace)'),
        variable('organization', 'Organization', 'label_values(generations_waiting, organization)'),
      ],
    },
    annotations: { list: [] },
    links: [],
    panels,
  };
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

module.exports = { render };

if (require.main === module) process.stdout.write(render());
