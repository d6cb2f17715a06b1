'use strict';
// autocannon, run in-process, with every response's status and latency kept by the bench itself:
// rounds can then be merged into one distribution, and "error" means exactly "not the status the
// scenario expects" (autocannon's own non2xx would count a 202 as fine and a 200 as fine alike).

const autocannon = require('autocannon');
const { percentile } = require('./harness');

function run(opts) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statuses = new Map();
    const instance = autocannon(
      { ...opts, renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false },
      (err, result) => (err ? reject(err) : resolve({ result, latencies, statuses })),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statuses.set(statusCode, (statuses.get(statusCode) || 0) + 1);
    });
  });
}

/**
 * A warm-up (discarded) and then a measured load of `connections` closed-loop keep-alive
 * connections for `durationS` seconds. `requests` is autocannon's request list (hooks allowed);
 * `meter()` is called as the measured part starts and its result's result is returned as `cpu`.
 */
async function measure({ url, connections, durationS, warmupS, requests, expectStatus, meter = () => () => null }) {
  const base = { url, connections, requests, timeout: 10 };
  if (warmupS > 0) await run({ ...base, duration: warmupS });
  const stopMeter = meter();
  const { result, latencies, statuses } = await run({ ...base, duration: durationS });
  const cpu = stopMeter();
  let ok = 0;
  for (const [status, n] of statuses) if (status === expectStatus) ok += n;
  const errors = latencies.length - ok + result.errors + result.timeouts;
  return {
    durationS: result.duration,
    responses: latencies.length,
    errors,
    statuses: Object.fromEntries(statuses),
    socketErrors: result.errors,
    timeouts: result.timeouts,
    latencies,
    cpu,
  };
}

/** Several measured runs of one scenario as one: responses per second over the summed time, pooled latencies. */
function merge(runs) {
  const latencies = runs.flatMap((r) => r.latencies);
  const seconds = runs.reduce((a, r) => a + r.durationS, 0);
  const statuses = {};
  for (const r of runs) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] || 0) + n;
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    responses: latencies.length,
    statuses,
    perRound: runs.map((r) => ({ rps: r.responses / r.durationS, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99) })),
  };
}

module.exports = { measure, merge };
