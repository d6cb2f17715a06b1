'use strict';
// npm run bench:tenancy [-- --heavy 500 --light-tenants 5 --light-every 3 --duration 45 --concurrency 4
//                          --marble-duration 300 --marble-light-every 200 --no-marble]
//
// Fair share (docs/architecture.md, "Fair share"), measured. A heavy tenant
// keeps `--heavy` generations waiting while `--light-tenants` light tenants each submit one every
// `--light-every` s for `--duration` s. Two sides in the same run, on the same build, each on a
// fresh database and queue prefix with one api and one worker process:
//  - fair share: the heavy and the light tenants are separate organizations, as in production;
//  - plain FIFO, the baseline: the very same requests, in the same order and at the same times,
//    sent through ONE organization, so admission serves them in arrival order — what a single
//    BullMQ queue did before fair share. Same processes, same admission code, same work.
// The heavy tenant tops its backlog up to `--heavy` waiting throughout the light window.
// Reported per side: the light tenants' wait to start (created → first started by a worker), p50,
// p99 and max, and starts per second during the light window, the heavy tenant's among them,
// against the fleet's capacity (a work-conserving scheduler keeps every free slot busy: the heavy
// tenant's throughput must not fall below what is left to it). A light generation still waiting
// when a side ends counts as waiting until then (censored; the table says how many).
// Two generators: the procedural one (CPU-bound, WORKER_CONCURRENCY slots), then the World Labs
// fake at Marble's default start rate (about 3 a minute per account, a rolling window), with
// GENERATION_PROVIDER_RATE=3/60 and `--marble-duration` s. Figures are printed, not asserted.

const h = require('./lib/harness');
const { requireTestSupport } = require('./lib/test-support');
const { Client } = require('pg');
const http = require('node:http');

const { fmt, log, percentile, sleep } = h;

const options = h.parseArgs(process.argv.slice(2), {
  heavy: 500,
  lightTenants: 5,
  lightEvery: 3,
  duration: 45,
  concurrency: 4,
  marbleDuration: 300,
  marbleLightEvery: 200,
  noMarble: false,
});

/**
 * One side: `fair` gives each tenant its own organization, else everyone shares one. Returns the
 * light generations' waits to start (ms; censored at the end of the side) and the starts counted
 * during the light window.
 */
async function side({ fair, generator, duration, lightEvery, extraEnv = {} }) {
  const stack = await h.prepareStack({ apps: ['api', 'worker'], logLevel: 'warn', note: `, ${fair ? 'fair share' : 'FIFO'}` });
  Object.assign(stack.env, { WORKER_CONCURRENCY: String(options.concurrency), ...extraEnv });
  const tenants = [];
  const organization = (name) => {
    if (!fair && tenants.length > 0) return tenants[0];
    const org = h.cliJson(['org', 'create', '--name', name, '--test'], stack.env);
    // Every tenant may use every slot: the heavy one must keep the fleet busy when no one else waits.
    h.cliJson(['org', 'limits', '--org', org.organizationId, '--max-concurrent-generations', '10000'], stack.env);
    const t = { organizationId: org.organizationId, authorization: `Bearer ${org.apiKey}` };
    tenants.push(t);
    return t;
  };
  const heavy = organization('heavy');
  const light = Array.from({ length: options.lightTenants }, (_, i) => organization(`light ${i + 1}`));
  const api = await h.startApp(stack, 'api');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  try {
    let next = 0;
    const heavyIds = [];
    const addHeavy = (count) =>
      Promise.all(
        Array.from({ length: Math.min(16, count) }, async () => {
          while (count > 0) {
            count -= 1;
            heavyIds.push(
              await h.createOperation({ port: stack.ports.api, agent, authorization: heavy.authorization, prompt: `heavy ${next++}` }),
            );
          }
        }),
      );
    await addHeavy(options.heavy);
    log(`${options.heavy} heavy generations waiting; starting the worker (${generator}, ${options.concurrency} slots)`);
    const worker = await h.startApp(stack, 'worker');
    const t0 = Date.now();
    const lightIds = [];
    // The heavy tenant keeps `--heavy` generations waiting for the whole light window: it tops its
    // backlog up as the fleet drains it, so every light generation meets a full flood.
    let windowOpen = true;
    const topUp = (async () => {
      while (windowOpen) {
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND started_at IS NULL`, [heavyIds]);
        if (options.heavy - rows[0].n > 0) await addHeavy(options.heavy - rows[0].n);
        await sleep(100);
      }
    })();
    // Each light tenant submits one every `lightEvery` s, the tenants staggered across that period.
    const submitters = light.map(async (tenant, i) => {
      await sleep((i * lightEvery * 1000) / light.length);
      while (Date.now() - t0 < duration * 1000) {
        lightIds.push(await h.createOperation({ port: stack.ports.api, agent, authorization: tenant.authorization, prompt: `light ${i}` }));
        // Not past the window's end: the window is what the starts per second are counted over.
        await sleep(Math.max(0, Math.min(lightEvery * 1000, t0 + duration * 1000 - Date.now())));
      }
    });
    await Promise.all(submitters);
    windowOpen = false;
    await topUp;
    const windowEnd = Date.now();
    // A little longer for the last light ones to start, then the side ends.
    const deadline = Date.now() + Math.min(30, lightEvery * 2) * 1000;
    for (;;) {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND started_at IS NULL`, [lightIds]);
      if (rows[0].n === 0 || Date.now() > deadline) break;
      await sleep(250);
    }
    const end = new Date();
    const { rows: lightRows } = await db.query(`SELECT created_at, started_at FROM operations WHERE id = ANY($1)`, [lightIds]);
    const waits = lightRows.map((r) => (r.started_at ?? end).getTime() - r.created_at.getTime());
    const censored = lightRows.filter((r) => r.started_at === null).length;
    const { rows: starts } = await db.query(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE NOT (id = ANY($3)))::int AS heavy
         FROM operations WHERE started_at >= $1 AND started_at < $2`,
      [new Date(t0), new Date(windowEnd), lightIds],
    );
    const seconds = (windowEnd - t0) / 1000;
    await worker.stop();
    return {
      waits,
      censored,
      startsPerSecond: starts[0].all / seconds,
      heavyStartsPerSecond: starts[0].heavy / seconds,
      lightCount: lightIds.length,
    };
  } finally {
    await db.end();
    agent.destroy();
    await api.stop();
  }
}

function report(label, fair, fifo) {
  const row = (name, s) => [
    name,
    `${s.lightCount}${s.censored ? ` (${s.censored} never started)` : ''}`,
    `${fmt(percentile(s.waits, 50) / 1000, 1)} s`,
    `${fmt(percentile(s.waits, 99) / 1000, 1)} s`,
    `${fmt(Math.max(...s.waits) / 1000, 1)} s`,
    fmt(s.startsPerSecond, 2),
    fmt(s.heavyStartsPerSecond, 2),
  ];
  const lines = [
    '',
    label,
    h.table([
      ['side', 'light generations', 'wait p50', 'wait p99', 'wait max', 'starts/s', 'heavy starts/s'],
      row('fair share', fair),
      row('plain FIFO (baseline)', fifo),
    ]),
    `light p99 wait, FIFO / fair share: ${fmt(percentile(fifo.waits, 99) / Math.max(1, percentile(fair.waits, 99)), 1)}×; ` +
      `starts per second, fair share / FIFO: ${fmt(fair.startsPerSecond / Math.max(1e-9, fifo.startsPerSecond), 2)}×`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

h.runBench(async () => {
  h.ensureBuilt();
  const procedural = { generator: 'procedural', duration: options.duration, lightEvery: options.lightEvery };
  const fairP = await side({ ...procedural, fair: true });
  const fifoP = await side({ ...procedural, fair: false });
  report(
    `procedural generator, ${options.concurrency} slots, ${options.heavy} heavy waiting, ${options.lightTenants} light tenants every ${options.lightEvery} s for ${options.duration} s`,
    fairP,
    fifoP,
  );

  if (options.noMarble) return;
  const { FakeWorldLabs, WORLDLABS_DEFAULT_START_RATE } = requireTestSupport('fakes/worldlabs-fake');
  const marble = async (fair) => {
    const fake = await FakeWorldLabs.start({ jobDurationMs: 5000, startRate: WORLDLABS_DEFAULT_START_RATE });
    fake.recordRequests = false;
    try {
      return await side({
        fair,
        generator: 'worldlabs fake',
        duration: options.marbleDuration,
        lightEvery: options.marbleLightEvery,
        extraEnv: {
          GENERATOR: 'worldlabs',
          WORLDLABS_BASE_URL: fake.url,
          WORLDLABS_API_KEY: fake.apiKey,
          GENERATION_PROVIDER_RATE: `${WORLDLABS_DEFAULT_START_RATE.starts}/${WORLDLABS_DEFAULT_START_RATE.windowMs / 1000}`,
          GENERATION_POLL_INTERVAL_MS: '500',
          GENERATION_POLL_MAX_MS: '1000',
        },
      }).then((s) => ({ ...s, refused: fake.rateLimited }));
    } finally {
      await fake.close();
    }
  };
  const fairM = await marble(true);
  const fifoM = await marble(false);
  report(
    `World Labs fake at Marble's default start rate (3/60 s, GENERATION_PROVIDER_RATE=3/60), ${options.heavy} heavy waiting, ` +
      `${options.lightTenants} light tenants every ${options.marbleLightEvery} s for ${options.marbleDuration} s (429s from the fake: fair ${fairM.refused}, FIFO ${fifoM.refused})`,
    fairM,
    fifoM,
  );
});
