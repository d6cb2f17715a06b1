'use strict';
// npm run bench:generation [-- --scenes 1000 --job-seconds 90 --concurrency 4]
//
// Long-running generations in one worker process, against the test suite's fake World Labs
// server (test/support/fakes/worldlabs-fake.ts, loaded through swc; it computes each job's state
// from the clock, so a thousand jobs cost it nothing). The api accepts `--scenes` scenes through
// the partner API; one worker (GENERATOR=worldlabs, defaults otherwise) submits them all, keeps
// them in flight while the fake "generates" for `--job-seconds`, polls them, then downloads and
// stores each world (splat, collider, panorama, thumbnail).
//
// Baseline: the same worker process at rest, before the load (its RSS, median of ten readings).
// Targets: at least 1,000 generations in flight at once in the one process, with its RSS growth
// over that baseline under 150 MiB while they are in flight (sampled every 100 ms, and the
// kernel's high-water mark); every scene submitted exactly once and succeeded. The burst of all
// results landing within seconds of each other is measured apart and printed without a target. It also prints how long
// submitting took, the poll rate, the worker's CPU, and how long the results took to land.

const h = require('./lib/harness');
const { requireTestSupport } = require('./lib/test-support');
const { Client } = require('pg');
const { readFileSync } = require('node:fs');
const http = require('node:http');

const { fmt, log, sleep, MiB } = h;
const TARGETS = { inFlight: 1000, rssGrowthMiB: 150 };

const options = h.parseArgs(process.argv.slice(2), {
  scenes: 1000,
  jobSeconds: 90,
  concurrency: 4,
  // Extra NODE_OPTIONS and MALLOC_ARENA_MAX for the worker (experiments with V8 and glibc settings).
  workerNodeOptions: '',
  workerMallocArenas: '',
  out: '',
});

h.runBench(async () => {
  h.ensureBuilt();
  const { FakeWorldLabs } = requireTestSupport('fakes/worldlabs-fake');
  const fake = await FakeWorldLabs.start({ jobDurationMs: options.jobSeconds * 1000 });
  fake.recordRequests = false;
  h.onCleanup('stop the fake World Labs server', () => fake.close());

  const stack = await h.prepareStack({ apps: ['api', 'worker'], logLevel: 'warn', note: `, ${options.scenes} scenes` });
  Object.assign(stack.env, {
    GENERATOR: 'worldlabs',
    WORLDLABS_BASE_URL: fake.url,
    WORLDLABS_API_KEY: fake.apiKey,
    WORKER_CONCURRENCY: String(options.concurrency),
  });
  // One organization runs them all: its limit must let every one be in flight at once.
  h.cliJson(
    ['org', 'limits', '--org', stack.organizationId, '--max-concurrent-generations', String(Math.max(10, options.scenes))],
    stack.env,
  );
  const api = await h.startApp(stack, 'api');
  const worker = await h.startApp(stack, 'worker', {
    env: {
      ...(options.workerNodeOptions ? { NODE_OPTIONS: options.workerNodeOptions } : {}),
      ...(options.workerMallocArenas ? { MALLOC_ARENA_MAX: options.workerMallocArenas } : {}),
    },
  });
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  h.onCleanup('close the database client', () => db.end());

  await sleep(2000);
  const restingRss = await h.restingRss(worker.pid);
  log(`worker at rest: RSS ${fmt(restingRss / MiB, 1)} MiB (the baseline); the fake's jobs take ${options.jobSeconds} s`);

  // Two phases, sampled apart: while the generations are in flight (the target), and the burst of
  // results landing at the end (every job finishes within seconds of the others here; each result
  // is downloaded, checked and stored, WORKER_CONCURRENCY at a time).
  let sampler = new h.RssSampler(worker.pid, 100);
  sampler.resetPeak();
  sampler.start();
  let inFlightRss = null;
  const cpu0 = processCpuSeconds(worker.pid);
  const t0 = performance.now();

  // The partner side: create every scene through the api, a few requests at a time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const created = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < options.scenes) {
        const i = next++;
        const prompt = `a misty harbour at dawn, take ${i}`;
        const id = await h.createOperation({ port: stack.ports.api, authorization: stack.authorization, agent, prompt });
        created.push({ id, at: performance.now() });
      }
    }),
  );
  const acceptedMs = performance.now() - t0;
  log(`${created.length} scenes accepted in ${fmt(acceptedMs / 1000, 1)} s`);

  // In flight: processing operations whose provider job is recorded (submitted, now waiting).
  let peakInFlight = 0;
  let allSubmittedMs = null;
  let firstSucceededMs = null;
  const pollsAt = [];
  const deadline = Date.now() + (options.jobSeconds + 600) * 1000;
  for (;;) {
    const { rows } = await db.query(
      `SELECT count(*) FILTER (WHERE status = 'processing' AND provider_job IS NOT NULL)::int AS in_flight,
              count(*) FILTER (WHERE provider_job IS NOT NULL)::int AS submitted,
              count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM operations`,
    );
    const s = rows[0];
    const elapsed = performance.now() - t0;
    peakInFlight = Math.max(peakInFlight, s.in_flight);
    if (allSubmittedMs === null && s.submitted >= options.scenes) allSubmittedMs = elapsed;
    if (firstSucceededMs === null && s.succeeded > 0) {
      firstSucceededMs = elapsed;
      inFlightRss = sampler.stop();
      sampler = new h.RssSampler(worker.pid, 100);
      sampler.resetPeak();
      sampler.start();
    }
    pollsAt.push({ t: elapsed, polls: fake.operationReads });
    if (pollsAt.length % 10 === 1) {
      log(
        `  ${fmt(elapsed / 1000, 0)} s: ${s.in_flight} in flight, ${s.succeeded} succeeded, worker RSS ${fmt(sampler.now() / MiB, 1)} MiB`,
      );
    }
    if (s.succeeded + s.failed >= options.scenes) break;
    if (Date.now() > deadline) throw new Error(`not finished in time: ${JSON.stringify(s)}`);
    await sleep(1000);
  }
  const doneMs = performance.now() - t0;
  const completionRss = sampler.stop();
  const rss = inFlightRss ?? completionRss;
  const cpuSeconds = processCpuSeconds(worker.pid) - cpu0;

  const { rows: finals } = await db.query(
    `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at)) AS p50,
            max(extract(epoch FROM completed_at - created_at)) AS max
       FROM operations`,
  );
  const { rows: artifacts } = await db.query(
    `SELECT kind, count(*)::int AS n, sum(bytes)::bigint AS bytes FROM scene_artifacts GROUP BY kind`,
  );
  await worker.stop();
  await api.stop();

  const growthMiB = (rss.peak - restingRss) / MiB;
  const completionGrowthMiB = (completionRss.peak - restingRss) / MiB;
  const pollRate = pollRateWhileWaiting(pollsAt, allSubmittedMs, firstSucceededMs);
  const f = finals[0];
  console.log(
    `\n${h.table([
      ['figure', 'value'],
      ['scenes', String(options.scenes)],
      ['provider submits (billed worlds)', String(fake.submits)],
      ['accepted by the api in', `${fmt(acceptedMs / 1000, 1)} s`],
      ['all submitted after', allSubmittedMs === null ? '-' : `${fmt(allSubmittedMs / 1000, 1)} s`],
      ['peak generations in flight (one worker)', String(peakInFlight)],
      ['polls per second while waiting', fmt(pollRate, 1)],
      ['worker RSS at rest (baseline)', `${fmt(restingRss / MiB, 1)} MiB`],
      [
        'worker RSS peak, generations in flight',
        `${fmt(rss.peak / MiB, 1)} MiB (${rss.samples} samples${Number.isFinite(rss.hwm) ? ', VmHWM included' : ''})`,
      ],
      ['worker RSS growth, generations in flight', `${fmt(growthMiB, 1)} MiB`],
      ['worker RSS growth, results landing', `${fmt(completionGrowthMiB, 1)} MiB (peak ${fmt(completionRss.peak / MiB, 1)} MiB)`],
      ['worker CPU for the whole run', `${fmt(cpuSeconds, 1)} s`],
      ['succeeded / failed', `${f.succeeded} / ${f.failed}`],
      ['created → succeeded p50 / max', `${fmt(Number(f.p50), 1)} s / ${fmt(Number(f.max), 1)} s (jobs take ${options.jobSeconds} s)`],
      ['results stored', artifacts.map((a) => `${a.kind} ${a.n} (${fmt(Number(a.bytes) / MiB, 1)} MiB)`).join(', ')],
      ['whole run', `${fmt(doneMs / 1000, 1)} s`],
    ])}\n`,
  );

  const checks = [
    ['generations in flight in one worker', `${peakInFlight}`, `≥ ${TARGETS.inFlight}`, peakInFlight >= TARGETS.inFlight],
    [
      'worker RSS growth with them in flight',
      `${fmt(growthMiB, 1)} MiB`,
      `< ${TARGETS.rssGrowthMiB} MiB`,
      growthMiB < TARGETS.rssGrowthMiB,
    ],
    ['each scene submitted once', `${fake.submits} submits`, `= ${options.scenes}`, fake.submits === options.scenes],
    ['every scene succeeded', `${f.succeeded}`, `= ${options.scenes}`, f.succeeded === options.scenes],
  ];
  console.log(`${h.table([['target', 'measured', 'target', ''], ...checks.map(([a, b, c, ok]) => [a, b, c, ok ? 'PASS' : 'FAIL'])])}\n`);
  if (options.out) {
    require('node:fs').writeFileSync(
      options.out,
      JSON.stringify(
        {
          options,
          peakInFlight,
          restingRss,
          rss,
          growthMiB,
          completionRss,
          completionGrowthMiB,
          cpuSeconds,
          finals: f,
          artifacts,
          submits: fake.submits,
          pollRate,
        },
        null,
        2,
      ),
    );
  }
  return checks.every((c) => c[3]) ? 0 : 1;
});

/** User + system CPU seconds of a process, from /proc. */
function processCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Polls per second between the last submit and the first result: the cost of waiting. */
function pollRateWhileWaiting(samples, fromMs, toMs) {
  if (fromMs === null || toMs === null || toMs <= fromMs) return NaN;
  const inWindow = samples.filter((s) => s.t >= fromMs && s.t <= toMs);
  if (inWindow.length < 2) return NaN;
  const a = inWindow[0];
  const b = inWindow[inWindow.length - 1];
  return (b.polls - a.polls) / ((b.t - a.t) / 1000);
}
