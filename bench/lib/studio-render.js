'use strict';
// bench:studio --render: the studio's offline render throughput (frames per second of video made)
// against a baseline page in the same run and browser that does the same work with nothing of
// the studio's render pipeline around it. Method and figures: docs/performance.md, "Offline
// render throughput".

const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { installFrameClockScript } = require('../../scripts/frame-clock');
const h = require('./harness');

const { fmt, log } = h;

const RESOLUTIONS = ['720p', '1080p'];
const RENDER_TIMEOUT_MS = 30 * 60_000;

/**
 * The baseline page's script. It builds the scene with the studio's own modules — the GLB parsed
 * as the studio parses it, the spec's sky, fog and lights (SceneEnvironment), a splat world with
 * the studio's Spark set-up and its `settle` (the wait for a sort of each exact view) — and a
 * renderer set up as the studio's. `__renderBaseline(job)` then does what a render does, bare:
 * for each of the studio's drawn poses, put the camera there, wait for the splats to settle,
 * draw at the output size, take the canvas as a VideoFrame and give it to a bare WebCodecs
 * VideoEncoder (the studio's codec string and bitrate rule), respecting its queue; then flush. No
 * muxing, no capture bookkeeping, no UI: the difference is what the studio adds.
 */
function renderBaselineSource(root, splats) {
  const src = `${root}/apps/studio-web/src/viewport`;
  return `import { ACESFilmicToneMapping, PerspectiveCamera, SRGBColorSpace, Scene, WebGLRenderer } from 'three';
import { videoBitrate } from '${root}/apps/studio-web/src/render/render-options.ts';
import { parseSceneGlb } from '${src}/scene-loader.ts';
import { SceneEnvironment } from '${src}/scene-environment.ts';
${splats ? `import { createSplatRenderer, loadSplat } from '${src}/splat-layer.ts';` : ''}
const canvas = document.createElement('canvas');
canvas.style.width = '640px';
canvas.style.height = '360px';
document.body.append(canvas);
const renderer = new WebGLRenderer({ canvas, antialias: true, powerPreference: 'high-performance' });
renderer.toneMapping = ACESFilmicToneMapping;
renderer.outputColorSpace = SRGBColorSpace;
renderer.setPixelRatio(1);
const scene = new Scene();
const spec = await (await fetch('./spec.json')).json();
let radius = 50;
try {
  const model = await parseSceneGlb(await (await fetch('./mesh.glb')).arrayBuffer());
  scene.add(model.root);
  radius = model.bounds.radius;
} catch {
  // A splat world without a drawn mesh: the splat alone.
}
${
  splats
    ? `const splat = await loadSplat(await (await fetch('./world.spz')).arrayBuffer());
radius = Math.max(radius, splat.bounds.radius);
const spark = createSplatRenderer(renderer, () => undefined);
scene.add(spark.object, splat.object);`
    : 'const spark = null;'
}
const environment = new SceneEnvironment(spec, radius);
environment.attach(scene);
const camera = new PerspectiveCamera(40, 16 / 9, 0.1, 2000);
camera.far = Math.max(1000, radius * 8);
camera.near = Math.max(0.05, camera.far / 100000);

window.__renderBaseline = async ({ width, height, display, codec, fps, filmGauge, aspect, poses }) => {
  // Shown on the page at the studio canvas's size: the compositor scales it as much as the studio's.
  canvas.style.width = display.width + 'px';
  canvas.style.height = display.height + 'px';
  renderer.setSize(width, height, false);
  camera.aspect = aspect;
  camera.filmGauge = filmGauge;
  let bytes = 0;
  let failure = null;
  const encoder = new VideoEncoder({ output: (chunk) => (bytes += chunk.byteLength), error: (e) => (failure = e) });
  const bitrate = videoBitrate(width, height, fps);
  encoder.configure({ codec, width, height, bitrate, framerate: fps, latencyMode: 'quality', bitrateMode: 'variable' });
  const start = performance.now();
  for (let i = 0; i < poses.length; i++) {
    const pose = poses[i];
    camera.position.fromArray(pose.position);
    camera.quaternion.fromArray(pose.quaternion);
    camera.setFocalLength(pose.focalLengthMm);
    camera.updateMatrixWorld();
    environment.follow(camera.position, camera.far);
    if (spark) await spark.settle(scene, camera);
    renderer.render(scene, camera);
    const frame = new VideoFrame(canvas, { timestamp: Math.round((i * 1e6) / fps), duration: Math.round(1e6 / fps) });
    encoder.encode(frame, { keyFrame: i % (2 * fps) === 0 });
    frame.close();
    while (encoder.encodeQueueSize > 2) await new Promise((resolve) => encoder.addEventListener('dequeue', resolve, { once: true }));
    if (failure) throw failure;
  }
  await encoder.flush();
  encoder.close();
  return { frames: poses.length, elapsedMs: performance.now() - start, bytes };
};
window.__renderBaselineReady = true;
`;
}

/** GET `path` of the studio API with the secret of the session whose embed URL is `url` (its fragment). */
function studioApiGet(url, path) {
  const u = new URL(url);
  return fetch(`${u.origin}/studio-api/v1${path}`, { headers: { authorization: `Bearer ${u.hash.slice(1)}` } });
}

/** Writes what the baseline page loads (spec, drawn mesh) into the harness directory. */
async function downloadSceneForBaseline(url, version, dir) {
  const get = async (path) => {
    const res = await studioApiGet(url, path);
    return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : null;
  };
  const spec = await get(`/scene/versions/${version}/spec`);
  if (!spec) throw new Error('the scene spec could not be downloaded');
  writeFileSync(join(dir, 'spec.json'), spec);
  // Only what the studio draws: the mesh (a splat world's collider is hidden).
  const mesh = await get(`/scene/versions/${version}/artifacts/mesh`);
  if (mesh) writeFileSync(join(dir, 'mesh.glb'), mesh);
  log(`baseline scene: spec, ${mesh ? `mesh ${fmt(mesh.length / 1024, 0)} KB` : 'no drawn mesh'}`);
}

/**
 * One studio page (top level, its clock held so the take is exactly `seconds` long): a take that
 * orbits the scene, then an offline render of it at each resolution, MP4 (H.264). One baseline
 * page renders the same poses at the same sizes. Studio and baseline alternate per size.
 */
async function measureRenders({ browser, url, harnessOrigin, embedOrigin, freshPage, meter, splats, fps, seconds, container, rounds }) {
  const studio = await freshPage(browser);
  await studio.context.addInitScript(installFrameClockScript, { origin: embedOrigin, step: 1000 / fps });
  const page = studio.page;
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction((s) => (s ? window.__studio?.firstSplatFrameAt : window.__studio?.firstFrameAt) != null, splats > 0, {
    timeout: RENDER_TIMEOUT_MS,
    polling: 100,
  });
  // The take: the clock held, ArrowLeft down, `seconds` × fps frames of 1 / fps each.
  await page.evaluate(() => window.__testClock.hold());
  await page.getByRole('button', { name: 'Start recording' }).click();
  await page.locator('canvas').focus();
  await page.keyboard.down('ArrowLeft');
  await page.evaluate((n) => window.__testClock.advance(n), Math.round(seconds * fps));
  await page.waitForFunction(() => window.__testClock.pending === 0, undefined, { timeout: RENDER_TIMEOUT_MS, polling: 100 });
  await page.keyboard.up('ArrowLeft');
  await page.getByRole('button', { name: 'Stop recording' }).click();
  await page.waitForFunction(() => window.__studio.state().perform.lastTake !== null, undefined, { timeout: 60_000 });
  await page.evaluate(() => window.__testClock.release());
  const take = await page.evaluate(() => window.__studio.state().perform.lastTake);
  log(`take: ${take.durationMs} ms, ${take.pathSamples} samples`);

  const baseline = await freshPage(browser);
  await baseline.page.goto(`${harnessOrigin}/render.html`, { waitUntil: 'commit' });
  await baseline.page.waitForFunction(() => window.__renderBaselineReady === true, undefined, { timeout: RENDER_TIMEOUT_MS, polling: 100 });

  const rows = [];
  const jobs = {};
  try {
    for (let round = 0; round < rounds; round++) {
      for (const resolution of RESOLUTIONS) {
        // Alternate which side goes first, so drift on the shared machine hits both alike.
        // The baseline draws the poses the studio drew (the first round always starts with the studio).
        const studioFirst = round % 2 === 0;
        let studioRun = studioFirst ? await renderInStudio(page, { resolution, fps, container, meter }) : null;
        jobs[resolution] ??= studioRun;
        const baselineRun = await renderInBaseline(baseline.page, jobs[resolution], fps, meter);
        studioRun ??= await renderInStudio(page, { resolution, fps, container, meter });
        const row = {
          round: round + 1,
          resolution,
          size: `${studioRun.last.width}×${studioRun.last.height}`,
          frames: studioRun.last.frames,
          codec: studioRun.codec,
          studioFps: studioRun.last.frames / (studioRun.last.elapsedMs / 1000),
          studioMs: studioRun.last.elapsedMs,
          studioBytes: studioRun.last.sizeBytes,
          baselineFps: baselineRun.frames / (baselineRun.elapsedMs / 1000),
          baselineMs: baselineRun.elapsedMs,
          baselineBytes: baselineRun.bytes,
          othersCores: Math.max(studioRun.othersCores, baselineRun.othersCores),
        };
        log(
          `round ${row.round}, ${resolution}: studio ${fmt(row.studioFps, 2)} frames/s (${fmt(row.studioMs / 1000, 1)} s), ` +
            `baseline ${fmt(row.baselineFps, 2)} frames/s (${fmt(row.baselineMs / 1000, 1)} s); others used ${fmt(row.othersCores, 2)} cores`,
        );
        rows.push(row);
      }
    }
  } finally {
    await baseline.context.close();
    await studio.context.close();
  }
  return { take, rows };
}

/** One render through the studio's own UI; what its render state says once the file is ready. */
async function renderInStudio(page, { resolution, fps, container, meter }) {
  const fpsSelect = page.getByLabel('Frame rate');
  await fpsSelect.scrollIntoViewIfNeeded();
  await fpsSelect.selectOption(String(fps));
  await page.getByLabel('Resolution').selectOption(resolution);
  await page.getByLabel('Format').selectOption(container);
  const before = await page.evaluate(() => window.__studio.state().perform.render.renders);
  const others = meter();
  await page.getByRole('button', { name: 'Render', exact: true }).click();
  await page.waitForFunction((n) => window.__studio.state().perform.render.renders > n, before, {
    timeout: RENDER_TIMEOUT_MS,
    polling: 250,
  });
  const othersCores = others();
  const result = await page.evaluate(() => {
    const r = window.__studio.state().perform.render;
    const c = window.__studio.camera();
    const box = document.querySelector('canvas').getBoundingClientRect();
    return {
      last: r.last,
      poses: r.drawnPoses,
      filmGauge: c.filmGauge,
      aspect: c.aspect,
      display: { width: box.width, height: box.height },
    };
  });
  return { ...result, codec: /codecs="([^"]+)"/.exec(result.last.mimeType)?.[1], othersCores };
}

async function renderInBaseline(page, studioRun, fps, meter) {
  const others = meter();
  const bare = await page.evaluate((job) => window.__renderBaseline(job), {
    width: studioRun.last.width,
    height: studioRun.last.height,
    display: studioRun.display,
    codec: studioRun.codec,
    fps,
    filmGauge: studioRun.filmGauge,
    aspect: studioRun.aspect,
    poses: studioRun.poses,
  });
  return { ...bare, othersCores: others() };
}

function renderReport({ take, rows }, { splats, fps, container, maxOther }) {
  const kb = (n) => `${fmt(n / 1024, 0)} KB`;
  const table = [
    [
      'round',
      'resolution',
      'frames',
      'studio frames/s',
      'baseline frames/s',
      'studio ÷ baseline',
      'studio file',
      'baseline bytes',
      'others (cores)',
    ],
  ];
  for (const r of rows) {
    table.push([
      String(r.round),
      `${r.resolution} (${r.size})`,
      String(r.frames),
      fmt(r.studioFps, 2),
      fmt(r.baselineFps, 2),
      `${fmt(r.studioFps / r.baselineFps, 2)}×`,
      kb(r.studioBytes),
      kb(r.baselineBytes),
      `${fmt(r.othersCores, 2)}${r.othersCores > maxOther ? ' DISTURBED' : ''}`,
    ]);
  }
  return [
    '',
    `Offline render throughput — ${splats ? `a splat world of ${splats} splats` : 'the procedural mesh scene'}, a ${take.durationMs} ms take orbiting it, ` +
      `${fps} fps, ${container === 'mp4' ? 'MP4 (H.264)' : 'WebM (VP9)'}, headless Chromium, SwiftShader WebGL`,
    'studio: Render to file ready (window.__studio.state().perform.render.last.elapsedMs); baseline: the same poses drawn and encoded by a bare loop',
    '',
    h.table(table),
    '',
    h.table([
      ['median over rounds', 'studio frames/s', 'baseline frames/s', 'studio ÷ baseline'],
      ...RESOLUTIONS.map((resolution) => {
        const of = rows.filter((r) => r.resolution === resolution);
        const studio = h.percentile(
          of.map((r) => r.studioFps),
          50,
        );
        const bare = h.percentile(
          of.map((r) => r.baselineFps),
          50,
        );
        return [`${resolution} (${of[0].size})`, fmt(studio, 2), fmt(bare, 2), `${fmt(studio / bare, 2)}×`];
      }),
    ]),
    '',
  ].join('\n');
}

module.exports = { renderBaselineSource, studioApiGet, downloadSceneForBaseline, measureRenders, renderReport };
