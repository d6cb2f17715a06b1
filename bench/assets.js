'use strict';
// npm run bench:assets [-- --clients 32 --duration 20 --file-mib 10 --samples 50 --warmup 10
//                         --sample-ms 100 --oriented-samples 20 --turned-samples 3 --no-baseline --metrics
//                         --compare-dist /path/to/other/dist --compare-label name --rounds 1]
//
// Image uploads (POST /v1/image-assets), measured against baselines taken in the same run:
//  - throughput of 32 closed-loop clients uploading a ~10 MiB PNG for 20 s, against a plain
//    node:http server that only hashes the same bodies;
//  - the api's peak resident memory during that load, against its own RSS after warm-up;
//  - the median Server-Timing `validate` of a 1920×1080 PNG uploaded alone, 50 times;
//  - the same of a 12-megapixel phone photo stored sideways (EXIF orientation 6), 20 times;
//  - the api's RSS growth while it turns a 24-megapixel 16-bit RGBA PNG (orientation 6), 3 times
//    one at a time and then 4 at once, against the weight its re-encode is counted for and the
//    re-encode memory budget of the build (issue 34).
// The images carry metadata (EXIF with GPS, XMP, text, a P3 profile), which the api removes.
// With --compare-dist, a second api build (another revision: `npx nest build api` in a worktree
// of it) is measured in the same run on the same images, each in its own database; --rounds N
// measures both N times, alternating which goes first. Targets: RSS growth < 256 MiB, median
// validation < 50 ms. Environment variables the api reads (UPLOAD_CONCURRENCY,
// DATABASE_POOL_SIZE, …) are passed through, for experiments. The figures are printed, not
// asserted: the exit code is 0 whatever they are. Method, machine and results:
// docs/performance.md.

const { join, resolve } = require('node:path');
const sharp = require('sharp');
const h = require('./lib/harness');
const { orientedPhotoJpeg, orientedSixteenBitPng, photoPng, photoPngOfSize, withPngMetadata } = require('./lib/images');
const { closedLoop, multipartBody, post } = require('./lib/load');
const { cpuMeter } = require('./lib/machine');

const { MiB, fmt, mib, log, percentile } = h;

const TARGET_RSS_GROWTH_BYTES = 256 * MiB;
const TARGET_MEDIAN_VALIDATION_MS = 50;
const LARGE = { width: 3840, height: 2160 };
const SMALL = { width: 1920, height: 1080 };
/** A 12-megapixel phone sensor, landscape as stored; the photo displays 3024×4032. */
const PHONE = { width: 4032, height: 3024 };
/** The 16-bit RGBA PNG of issue 34, stored landscape with orientation 6. */
const TURNED = { width: 6000, height: 4000 };
/** How many of it are uploaded at once, after those one at a time. */
const TURNED_AT_ONCE = 4;
const MAX_SIDE_PX = 6144;
const MAX_PIXELS = 24_000_000;
const WAITED_MS = 1000;
/** Cores used by neither party nor Postgres above which a load's figures are flagged. */
const DISTURBED_CORES = 0.25;

const options = h.parseArgs(process.argv.slice(2), {
  clients: 32,
  duration: 20,
  // Target size of the load's PNG (at most this many MiB; the api accepts up to 20).
  fileMib: 10,
  samples: 50,
  warmup: 10,
  sampleMs: 100,
  // Uploads of the phone photo (turned by the api), one at a time; 0 leaves them out.
  orientedSamples: 20,
  // Uploads of the 16-bit RGBA PNG (turned by the api), one at a time, then 4 at once; 0 leaves them out.
  turnedSamples: 3,
  noBaseline: false,
  // Another api build to measure in the same run (its dist/ folder), and its name in the report.
  compareDist: '',
  compareLabel: 'compare',
  // With --compare-dist: how many times each build is measured (alternating which goes first).
  rounds: 1,
  // Also scrape the api's /metrics (on its ops port) every 500 ms for a V8 heap / external memory breakdown.
  metrics: false,
});

if (options.compareDist && !/^[A-Za-z0-9_.-]{1,32}$/.test(options.compareLabel)) {
  throw new Error('--compare-label must be 1 to 32 letters, digits, dots, dashes or underscores');
}

h.runBench(async () => {
  h.ensureBuilt();
  const images = await makeImages();

  const bodies = Array.from({ length: options.clients }, () => multipartBody(images.large.png));
  const baseline = options.noBaseline ? null : await runBaseline(bodies);
  const builds = [
    { label: 'api', dist: 'dist' },
    ...(options.compareDist ? [{ label: options.compareLabel, dist: options.compareDist }] : []),
  ];
  const rounds = [];
  for (let round = 0; round < (options.compareDist ? options.rounds : 1); round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    const results = {};
    for (const build of order) results[build.label] = await runApi(bodies, images, build);
    rounds.push(results);
  }

  for (const [i, results] of rounds.entries()) {
    for (const result of Object.values(results))
      printSummary(images, baseline, result, rounds.length > 1 ? `, round ${i + 1} of ${rounds.length}` : '');
  }
  if (options.compareDist) printComparison(images, rounds);
  return 0;
});

async function makeImages() {
  const targetBytes = Math.round(options.fileMib * MiB);
  log(
    `generating a ${LARGE.width}×${LARGE.height} PNG of at most ${targetBytes} bytes and a ${SMALL.width}×${SMALL.height} PNG, with metadata`,
  );
  // The metadata adds a few KiB: the load image is tuned to leave room for it.
  const metadataRoom = (await withPngMetadata(await photoPng(16, 16))).length - (await photoPng(16, 16)).length;
  const { png: largePlain, amplitude } = await photoPngOfSize(LARGE.width, LARGE.height, targetBytes - metadataRoom, { seed: 1 });
  const largePng = await withPngMetadata(largePlain);
  const smallPng = await withPngMetadata(await photoPng(SMALL.width, SMALL.height, { amplitude: 16, seed: 2 }));
  const describe = async (png) => {
    const m = await sharp(png).metadata();
    if (m.format !== 'png' || m.width > MAX_SIDE_PX || m.height > MAX_SIDE_PX || m.width * m.height > MAX_PIXELS) {
      throw new Error(`generated image is not an acceptable PNG: ${m.format} ${m.width}×${m.height}`);
    }
    return { png, bytes: png.length, width: m.width, height: m.height };
  };
  const large = { ...(await describe(largePng)), noiseAmplitude: amplitude };
  const small = await describe(smallPng);
  const phoneJpeg = await orientedPhotoJpeg(PHONE.width, PHONE.height);
  const phone = { jpeg: phoneJpeg, bytes: phoneJpeg.length, width: PHONE.height, height: PHONE.width };
  const turnedPng = await orientedSixteenBitPng(TURNED.width, TURNED.height);
  const turned = { png: turnedPng, bytes: turnedPng.length, meta: await sharp(turnedPng).metadata() };
  log(
    `large: ${large.width}×${large.height}, ${large.bytes} bytes (${mib(large.bytes, 2)} MiB); small: ${small.width}×${small.height}, ${small.bytes} bytes; ` +
      `phone photo: ${PHONE.width}×${PHONE.height} JPEG with orientation 6, ${phone.bytes} bytes; ` +
      `16-bit RGBA PNG: ${TURNED.width}×${TURNED.height} with orientation 6, ${turned.bytes} bytes`,
  );
  return { large, small, phone, turned };
}

/** The same load against a node:http server that only hashes the bytes. */
async function runBaseline(bodies) {
  const port = await h.freePort();
  const server = h.startNode('baseline server', join(__dirname, 'lib/baseline-server.js'), [String(port)], {});
  await h.waitFor200(server, port, '/');
  log(`baseline: ${options.clients} clients for ${options.duration} s against node:http on :${port}`);
  const rss = new h.RssSampler(server.pid, options.sampleMs);
  const { load, cpu, memory } = await uploadLoad({ port, pid: server.pid, bodies, rss });
  await server.stop();
  return { load, memory, cpu };
}

/**
 * `options.clients` closed-loop clients uploading `bodies` for `options.duration` s; the server's
 * RSS (`rss`) and the CPU (Postgres: `database`'s backends, none without) are measured over the
 * load. `onStart` runs as it starts.
 */
async function uploadLoad({ port, pid, database, bodies, headers, rss, onStart = () => {} }) {
  let cpuUsed;
  const load = await closedLoop({
    port,
    path: '/v1/image-assets',
    clients: options.clients,
    durationMs: options.duration * 1000,
    bodies,
    headers,
    onStart: () => {
      rss.start();
      cpuUsed = cpuMeter({ pid, database });
      onStart();
    },
  });
  const cpu = cpuUsed();
  const memory = rss.stop();
  return { load, cpu, memory };
}

async function runApi(bodies, images, build) {
  const stack = await h.prepareStack({ note: ` for ${build.label} (${build.dist})` });
  const { db } = stack;
  const port = stack.ports.api;
  const api = await h.startApp(stack, 'api', { dist: build.dist, label: `${build.label} api` });
  const rssAtReady = await h.restingRss(api.pid);
  const settings = {
    uploadConcurrency: process.env.UPLOAD_CONCURRENCY || '4 (default)',
    queueTimeoutSeconds: process.env.UPLOAD_QUEUE_TIMEOUT_SECONDS || '30 (default)',
    poolSize: process.env.DATABASE_POOL_SIZE || '10 (default)',
  };
  log(`${build.label}: api pid ${api.pid} on :${port}; UPLOAD_CONCURRENCY=${settings.uploadConcurrency}`);

  const auth = { authorization: stack.authorization };
  const upload = ({ body, contentType }) =>
    post({ port, path: '/v1/image-assets', agent: false, headers: { ...auth, 'content-type': contentType }, body });
  const small = multipartBody(images.small.png);
  const uploadSmall = () => upload(small);
  const expect201 = (r, what) => {
    if (r.status !== 201) throw new Error(`${what}: expected 201, got ${r.status || r.error}: ${r.text}`);
    return r;
  };

  // Warm-up: JIT, connection pool, sharp/libvips initialisation, both image sizes.
  log(`warm-up: ${options.warmup} uploads of each image, one at a time`);
  for (let i = 0; i < options.warmup; i++) {
    expect201(await uploadSmall(), 'warm-up');
    expect201(await upload(bodies[i % bodies.length]), 'warm-up');
  }

  log(`validation: ${options.samples} uploads of the ${images.small.width}×${images.small.height} PNG, one at a time`);
  const validation = [];
  const validationLatency = [];
  const validationStarted = performance.now();
  const validationCpuUsed = cpuMeter({ pid: api.pid, database: db.name });
  for (let i = 0; i < options.samples; i++) {
    const r = expect201(await uploadSmall(), 'validation sample');
    validation.push(serverTimingValidate(r.headers));
    validationLatency.push(r.ended - r.started);
  }
  const validationCpu = { ...validationCpuUsed(), seconds: (performance.now() - validationStarted) / 1000 };
  if (validation.some((v) => !Number.isFinite(v))) throw new Error('a 201 lacked Server-Timing: validate;dur=<ms>');
  log(`validation samples, ms: ${validation.join(' ')}`);

  const phone = multipartBody(images.phone.jpeg, { filename: 'phone.jpg', contentType: 'image/jpeg' });
  const oriented = [];
  const orientedLatency = [];
  if (options.orientedSamples > 0) {
    log(`validation: ${options.orientedSamples} uploads of the phone photo (orientation 6), one at a time`);
    expect201(await upload(phone), 'phone photo warm-up');
    for (let i = 0; i < options.orientedSamples; i++) {
      const r = expect201(await upload(phone), 'phone photo sample');
      const body = JSON.parse(r.text);
      if (body.width !== images.phone.width || body.height !== images.phone.height) {
        throw new Error(`the phone photo was answered ${body.width}×${body.height}, not ${images.phone.width}×${images.phone.height}`);
      }
      oriented.push(serverTimingValidate(r.headers));
      orientedLatency.push(r.ended - r.started);
    }
    log(`phone photo samples, ms: ${oriented.join(' ')}`);
  }

  const turned = options.turnedSamples > 0 ? await measureTurned(api, upload, images.turned, build, expect201) : null;

  await h.sleep(1000);
  const rssBaseline = await h.restingRss(api.pid);
  log(`api RSS at rest after warm-up: ${mib(rssBaseline)} MiB; load: ${options.clients} clients for ${options.duration} s`);
  const rss = new h.RssSampler(api.pid, options.sampleMs);
  rss.resetPeak();
  const dbBefore = await h.databaseSizeBytes(db.url);
  let scraper = null;
  const { load, cpu, memory } = await uploadLoad({
    port,
    pid: api.pid,
    database: db.name,
    bodies,
    headers: auth,
    rss,
    onStart: () => {
      if (options.metrics) scraper = scrapeMemoryMetrics(stack.opsPorts.api);
    },
  });
  const breakdown = scraper ? await scraper.stop() : null;
  const rssAfter = await h.restingRss(api.pid);
  const dbAfter = await h.databaseSizeBytes(db.url);

  await api.stop();
  return {
    label: build.label,
    dist: build.dist,
    settings,
    load,
    memory: { ...memory, atReady: rssAtReady, baseline: rssBaseline, after: rssAfter, timeline: rss.samples, hwmReset: rss.hwmReset },
    cpu,
    breakdown,
    validation,
    validationLatency,
    validationCpu,
    oriented,
    orientedLatency,
    turned,
    dbGrowth: dbAfter - dbBefore,
  };
}

/**
 * The api's RSS while it turns the 16-bit PNG: `options.turnedSamples` uploads one at a time,
 * then TURNED_AT_ONCE at once, each measured from the api's resting RSS just before to the peak
 * (VmHWM, reset first, and samples every 50 ms). The weight its re-encode is counted for and the
 * budget come from the build itself (none for a build without a re-encode budget).
 */
async function measureTurned(api, upload, turned, build, expect201) {
  const body = multipartBody(turned.png, { filename: 'turned.png', contentType: 'image/png' });
  let weight = NaN;
  let budget = NaN;
  try {
    const media = require(resolve(build.dist, 'libs/image-assets/src/media/sharp-image-media.js'));
    if (media.reencodeWeight) {
      weight = media.reencodeWeight(turned.meta, { format: 'png' }, turned.bytes);
      budget = media.REENCODE_BUDGET_BYTES;
    }
  } catch {
    /* a build without the module: no figures to compare with */
  }
  const measure = async (what, count) => {
    await h.sleep(500);
    const rest = await h.restingRss(api.pid, 5, 100);
    const rss = new h.RssSampler(api.pid, 50);
    rss.resetPeak();
    rss.start();
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: count }, () => upload(body)));
    const seconds = (performance.now() - started) / 1000;
    const m = rss.stop();
    for (const r of results) expect201(r, what);
    return { growth: m.peak - rest, seconds, validate: results.map((r) => serverTimingValidate(r.headers)) };
  };
  log(`16-bit PNG: ${options.turnedSamples} uploads one at a time, then ${TURNED_AT_ONCE} at once`);
  expect201(await upload(body), '16-bit PNG warm-up');
  const alone = [];
  for (let i = 0; i < options.turnedSamples; i++) alone.push(await measure('16-bit PNG sample', 1));
  const together = await measure('16-bit PNG, several at once', TURNED_AT_ONCE);
  log(
    `16-bit PNG, RSS growth one at a time, MiB: ${alone.map((a) => mib(a.growth)).join(' ')}; ${TURNED_AT_ONCE} at once: ${mib(together.growth)}`,
  );
  return { weight, budget, alone, together };
}

/** Peaks of prom-client's process metrics, scraped every 500 ms until `stop()`. */
function scrapeMemoryMetrics(port) {
  const names = ['nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'];
  const peaks = Object.fromEntries(names.map((n) => [n, 0]));
  let first = null;
  let running = true;
  const loop = (async () => {
    while (running) {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      for (const n of names) {
        const m = new RegExp(`^${n}(?:\\{[^}]*\\})? ([\\d.e+]+)$`, 'm').exec(text);
        if (m) peaks[n] = Math.max(peaks[n], Number(m[1]));
      }
      first ??= { ...peaks };
      await h.sleep(500);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const pick = (o) => ({ heapTotal: o[names[0]], heapUsed: o[names[1]], external: o[names[2]] });
      return { start: pick(first ?? peaks), peak: pick(peaks) };
    },
  };
}

function serverTimingValidate(headers) {
  const m = /(?:^|,)\s*validate;dur=([\d.]+)/.exec(headers['server-timing'] || '');
  return m ? Number(m[1]) : NaN;
}

/** Throughput in the window, statuses, latencies. */
function summarize(load, fileBytes) {
  const windowMs = load.durationMs;
  const inWindow = load.results.filter((r) => r.ended <= windowMs);
  const ok = inWindow.filter((r) => r.status === 201);
  const all201 = load.results.filter((r) => r.status === 201);
  const statuses = {};
  for (const r of load.results) {
    const key = r.status ? String(r.status) : `error ${r.error}`;
    statuses[key] = (statuses[key] || 0) + 1;
  }
  /** p50, p90 and max of one duration over the uploads that succeeded. */
  const spread = (duration) => {
    const ms = all201.map(duration);
    return { p50: percentile(ms, 50), p90: percentile(ms, 90), max: percentile(ms, 100) };
  };
  return {
    uploadsPerSecond: ok.length / (windowMs / 1000),
    mibPerSecond: (ok.length * fileBytes) / MiB / (windowMs / 1000),
    okInWindow: ok.length,
    total: load.results.length,
    afterWindow: load.results.length - inWindow.length,
    drainedMs: load.drainedMs,
    statuses,
    count503: load.results.filter((r) => r.status === 503).length,
    // The server leaves a waiting upload unread, so its body cannot be sent in full.
    waited: load.results.filter((r) => r.sent - r.started > WAITED_MS).length,
    failed: load.results.filter((r) => r.status !== 201).length,
    latency: spread((r) => r.ended - r.started),
    // Until the last body byte reached the kernel: an upload waiting for a slot is not read.
    send: spread((r) => r.sent - r.started),
    afterSend: spread((r) => r.ended - r.sent),
    validate: all201.map((r) => serverTimingValidate(r.headers)).filter(Number.isFinite),
  };
}

function printSummary(images, baseline, api, round) {
  const { large, small, phone } = images;
  const a = summarize(api.load, large.bytes);
  const b = baseline && summarize(baseline.load, large.bytes);
  const pass = (ok) => (ok ? 'PASS' : 'FAIL');
  const p = (values, q, digits = 0) => fmt(percentile(values, q), digits);
  const out = [];
  out.push('');
  out.push(`Image uploads (npm run bench:assets), ${new Date().toISOString()}: ${api.label} (${api.dist})${round}`);
  out.push(
    `load: ${options.clients} clients × ${options.duration} s, closed loop, each uploading a ${large.width}×${large.height} PNG of ` +
      `${large.bytes} bytes (${mib(large.bytes, 2)} MiB)`,
  );
  out.push(
    `api: UPLOAD_CONCURRENCY=${api.settings.uploadConcurrency}, UPLOAD_QUEUE_TIMEOUT_SECONDS=${api.settings.queueTimeoutSeconds}, ` +
      `DATABASE_POOL_SIZE=${api.settings.poolSize}`,
  );
  out.push('');

  const statusText = (s) =>
    Object.entries(s.statuses)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ');
  const row = (name, s) => [
    name,
    fmt(s.uploadsPerSecond, 2),
    fmt(s.mibPerSecond, 1),
    String(s.okInWindow),
    statusText(s),
    fmt(s.latency.p50, 0),
    fmt(s.latency.p90, 0),
  ];
  const rows = [['throughput', 'uploads/s', 'MiB/s', '201s in window', 'all responses', 'p50 ms', 'p90 ms']];
  if (b) rows.push(row('baseline: node:http, hash only', b));
  rows.push(row(`${api.label}: POST /v1/image-assets`, a));
  if (b) {
    const ratio = (x, y) => `${fmt((x / y) * 100, 1)} %`;
    rows.push([
      `${api.label} / baseline`,
      ratio(a.uploadsPerSecond, b.uploadsPerSecond),
      ratio(a.mibPerSecond, b.mibPerSecond),
      '',
      '',
      '',
      '',
    ]);
  }
  out.push(h.table(rows));
  out.push(
    `- ${api.label}: ${a.waited} of ${a.total} uploads waited for a slot (body not taken within ${WAITED_MS / 1000} s; ` +
      `time to send the body p50 ${fmt(a.send.p50, 0)} ms, max ${fmt(a.send.max, 0)} ms), ` +
      `${a.count503} answered 503 (no slot within UPLOAD_QUEUE_TIMEOUT_SECONDS), ${a.failed} not 201 in all`,
  );
  out.push(
    `- ${api.label}: after the body was sent, p50 ${fmt(a.afterSend.p50, 0)} ms to the response; ` +
      `Server-Timing validate of these uploads p50 ${p(a.validate, 50)} ms, p90 ${p(a.validate, 90)} ms; database grew ${fmt(api.dbGrowth / 1024 ** 3, 2)} GiB`,
  );
  out.push(
    `- uploads in flight at the deadline finished later and are not counted: api ${a.afterWindow} within ` +
      `${fmt((a.drainedMs - api.load.durationMs) / 1000, 1)} s` +
      (b ? `, baseline ${b.afterWindow}` : ''),
  );
  const cpuText = (c, sec) => {
    // No Redis column here: Redis counts as other work (the meter's own `other` leaves it out).
    const other = Math.max(0, c.machineBusy - c.server - c.postgres - c.bench);
    return (
      `${fmt(c.machineBusy / sec, 2)} of ${fmt(c.machineTotal / sec, 0)} cores busy (server ${fmt(c.server / sec, 2)}, ` +
      `postgres ${fmt(c.postgres / sec, 2)}, load generator ${fmt(c.bench / sec, 2)}, other ${fmt(other / sec, 2)})` +
      (other / sec > DISTURBED_CORES ? ' — WARNING: other work on the machine disturbed this load' : '')
    );
  };
  if (b) out.push(`- CPU, baseline load: ${cpuText(baseline.cpu, baseline.load.drainedMs / 1000)}`);
  out.push(`- CPU, ${api.label} load: ${cpuText(api.cpu, api.load.drainedMs / 1000)}`);
  out.push('');

  const m = api.memory;
  const growth = m.peak - m.baseline;
  out.push(
    h.table([
      ['api resident memory', 'baseline MiB', 'peak MiB', 'growth MiB', 'target', 'result'],
      [
        'VmRSS during the load',
        mib(m.baseline),
        mib(m.peak),
        mib(growth),
        `< ${TARGET_RSS_GROWTH_BYTES / MiB} MiB`,
        pass(growth < TARGET_RSS_GROWTH_BYTES),
      ],
    ]),
  );
  out.push(
    `- baseline: median VmRSS at rest after warm-up (${mib(m.atReady)} MiB after /readyz, before warm-up); ` +
      `at rest after the load ${mib(m.after)} MiB`,
  );
  out.push(
    `- peak: max of ${m.samples} samples every ${options.sampleMs} ms (${mib(m.sampledPeak)} MiB)` +
      (m.hwmReset ? ` and VmHWM, reset before the load (${mib(m.hwm)} MiB)` : ' (VmHWM could not be reset)') +
      (baseline ? `; baseline server peak ${mib(baseline.memory.peak)} MiB` : ''),
  );
  if (api.breakdown) {
    const { start: s0, peak: k } = api.breakdown;
    out.push(
      `- /metrics, start → peak of the load: V8 heap total ${mib(s0.heapTotal)} → ${mib(k.heapTotal)} MiB, ` +
        `external (Buffers) ${mib(s0.external)} → ${mib(k.external)} MiB`,
    );
  }
  out.push(
    `- VmRSS, max of each second of the load, MiB: ${perSecondMax(m.timeline)
      .map((v) => mib(v, 0))
      .join(' ')}`,
  );
  out.push('');

  const v50 = percentile(api.validation, 50);
  out.push(
    h.table([
      ['validation (Server-Timing)', 'samples', 'median ms', 'p90 ms', 'max ms', 'target', 'result'],
      [
        `${small.width}×${small.height} PNG, ${small.bytes} bytes, one at a time`,
        String(api.validation.length),
        fmt(v50, 1),
        p(api.validation, 90, 1),
        p(api.validation, 100, 1),
        `< ${TARGET_MEDIAN_VALIDATION_MS} ms`,
        pass(v50 < TARGET_MEDIAN_VALIDATION_MS),
      ],
    ]),
  );
  out.push(`- CPU during the samples: ${cpuText(api.validationCpu, api.validationCpu.seconds)}`);
  out.push(`- whole request, client side: median ${p(api.validationLatency, 50, 1)} ms, p90 ${p(api.validationLatency, 90, 1)} ms`);
  if (api.turned) {
    const { weight, budget, alone, together } = api.turned;
    const growths = alone.map((a) => a.growth);
    const maxAlone = Math.max(...growths);
    const counted = Number.isFinite(weight)
      ? `counted as ${mib(weight)} MiB of a re-encode budget of ${mib(budget)} MiB per api process`
      : 'this build counts no re-encode budget';
    out.push(
      `- 16-bit RGBA PNG (${TURNED.width}×${TURNED.height} stored, orientation 6, ${images.turned.bytes} bytes), ${counted}: ` +
        `one at a time (${alone.length}): validate median ${p(
          alone.map((a) => a.validate[0]),
          50,
          0,
        )} ms, ` +
        `RSS growth median ${mib(percentile(growths, 50))} MiB, max ${mib(maxAlone)} MiB` +
        (Number.isFinite(weight) ? ` (within its weight: ${pass(maxAlone <= weight)})` : '') +
        `; ${TURNED_AT_ONCE} at once: RSS growth ${mib(together.growth)} MiB` +
        (Number.isFinite(budget) ? ` (within the budget: ${pass(together.growth <= budget)})` : '') +
        `, all answered in ${fmt(together.seconds, 1)} s`,
    );
  }
  if (api.oriented.length > 0) {
    out.push(
      `- phone photo (${phone.height}×${phone.width} stored, orientation 6, ${phone.bytes} bytes), ${api.oriented.length} one at a time: ` +
        `validate median ${p(api.oriented, 50, 1)} ms, p90 ${p(api.oriented, 90, 1)} ms; whole request median ${p(api.orientedLatency, 50, 1)} ms`,
    );
  }
  out.push('');
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * The builds side by side, round by round: throughput, RSS growth, validation medians, and this
 * build's figures as a share of the compared one's (uploads/s: higher is better; the others:
 * lower is better).
 */
function printComparison(images, rounds) {
  const [mine, theirs] = Object.keys(rounds[0]);
  const figures = (r) => {
    const s = summarize(r.load, images.large.bytes);
    return {
      uploadsPerSecond: s.uploadsPerSecond,
      rssGrowth: r.memory.peak - r.memory.baseline,
      validation: percentile(r.validation, 50),
      phone: r.oriented.length > 0 ? percentile(r.oriented, 50) : NaN,
      turned: r.turned ? r.turned.together.growth : NaN,
    };
  };
  /** Cores that went to neither the api, Postgres nor the load generator during a measurement. */
  const others = (cpu, seconds) => Math.max(0, cpu.machineBusy - cpu.server - cpu.postgres - cpu.bench) / seconds;
  const disturbance = (r) =>
    `load ${fmt(others(r.cpu, r.load.drainedMs / 1000), 2)}, samples ${fmt(others(r.validationCpu, r.validationCpu.seconds), 2)}`;
  const median = (values) => {
    const v = [...values].sort((x, y) => x - y);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const rows = [
    [
      'round',
      'build',
      'uploads/s',
      'RSS growth MiB',
      'validate median ms (PNG)',
      'validate median ms (phone photo)',
      `RSS growth MiB (16-bit PNG ×${TURNED_AT_ONCE})`,
      'other work, cores',
    ],
  ];
  const ratios = { uploadsPerSecond: [], rssGrowth: [], validation: [], phone: [], turned: [] };
  for (const [i, results] of rounds.entries()) {
    const a = figures(results[mine]);
    const b = figures(results[theirs]);
    for (const [label, f] of [
      [mine, a],
      [theirs, b],
    ]) {
      rows.push([
        String(i + 1),
        label,
        fmt(f.uploadsPerSecond, 2),
        mib(f.rssGrowth),
        fmt(f.validation, 1),
        fmt(f.phone, 1),
        mib(f.turned),
        disturbance(results[label]),
      ]);
    }
    for (const k of Object.keys(ratios)) ratios[k].push(a[k] / b[k]);
    const pct = (k) => `${fmt(ratios[k][i] * 100, 1)} %`;
    rows.push([
      String(i + 1),
      `${mine} ÷ ${theirs}`,
      pct('uploadsPerSecond'),
      pct('rssGrowth'),
      pct('validation'),
      pct('phone'),
      pct('turned'),
      '',
    ]);
  }
  if (rounds.length > 1) {
    const med = (k) => `${fmt(median(ratios[k]) * 100, 1)} %`;
    rows.push([
      'median',
      `${mine} ÷ ${theirs}`,
      med('uploadsPerSecond'),
      med('rssGrowth'),
      med('validation'),
      med('phone'),
      med('turned'),
      '',
    ]);
  }
  process.stdout.write(`\n${mine} against ${theirs} (${options.compareDist}), same images, same run\n${h.table(rows)}\n`);
}

function perSecondMax(samples) {
  const out = [];
  for (const s of samples) {
    const i = Math.floor(s.t / 1000);
    out[i] = Math.max(out[i] || 0, s.rss);
  }
  return Array.from(out, (v) => v || 0);
}
