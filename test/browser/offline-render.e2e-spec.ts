import { writeFile } from 'node:fs/promises';
import { BrowserContext, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import type { CameraPathDocument } from '../../apps/studio-web/src/model/camera-path';
import { moveFromDocument } from '../../apps/studio-web/src/model/camera-move-document';
import { moveFromPath } from '../../apps/studio-web/src/model/camera-move';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { artifactPath } from '../support/browser';
import { angleDeg, chooseRender, importMove, scopeMoveDocument } from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { frameClock, installFrameClock } from '../support/frame-clock';
import {
  embedStudio,
  imageStats,
  postedBlob,
  ReceivedStudioEvent,
  recordShortTake,
  studioEvents,
  waitForEvent,
  waitForVersion,
} from '../support/studio-frame';
import { decodeFrame, matroskaSegmentChildren, probeVideo, seekTimestamp } from '../support/video-probe';

/** Software WebGL draws 5–7 frames a second at 720p: renders get generous deadlines, never timed assertions. */
const RENDER_TIMEOUT = 180_000;
const FPS = 30;

const debugCamera = (frame: Frame) =>
  frame.evaluate(() => {
    const c = (window as any).__studio.camera();
    return {
      position: c.position as number[],
      quaternion: c.quaternion as number[],
      focalLengthMm: c.focalLengthMm as number,
      aspect: c.aspect,
    };
  });

/** A pose the last render drew a frame at (`state().perform.render.drawnPoses`). */
interface DrawnPose {
  t: number;
  position: number[];
  quaternion: number[];
  focalLengthMm: number;
}
const drawnPoses = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state().perform.render.drawnPoses as DrawnPose[]);

/**
 * Deliverable video (issue 14, item 2) in Debian's Chromium against the real stack: a camera
 * move rendered offline frame by frame at a fixed rate, encoded with WebCodecs, muxed to MP4
 * (H.264) or WebM (VP9), checked with FFmpeg's ffprobe, handed to the parent; cancelling; and
 * the live take's WebM made seekable. The moves are takes of an exact length: the test holds the
 * studio's clock (test/support/frame-clock.ts) and lets it run 60 frames of 1/30 s while a key
 * turns the camera.
 */
describe('offline render of a camera move, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  let sceneId: string;

  beforeAll(async () => {
    sceneId = await readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at sunset, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(options: { clock?: boolean; size?: { width: number; height: number } } = {}): Promise<{ page: Page; frame: Frame }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    if (options.clock) await installFrameClock(context, stack.embedOrigin, FPS);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    expect(session.status).toBe(201);
    const { frame } = await embedStudio(page, session.body.url as string, options.size ?? { width: 960, height: 540 });
    await waitForVersion(frame, 1, 30_000);
    return { page, frame };
  }

  /** A take exactly `frames` / 30 s long, the camera orbiting left all the way (ArrowLeft held). */
  async function recordExactTake(page: Page, frame: Frame, frames: number): Promise<ReceivedStudioEvent> {
    await frameClock.hold(frame);
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', 30_000);
    await page.keyboard.down('ArrowLeft');
    try {
      await frameClock.advance(frame, frames, RENDER_TIMEOUT);
    } finally {
      await page.keyboard.up('ArrowLeft');
    }
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    const completed = await waitForEvent(page, 'recording.completed', 60_000);
    await frameClock.release(frame);
    return completed;
  }

  it('renders a 1 s move at 30 fps to MP4 (H.264) and WebM (VP9): 30 frames and 1.0 s by ffprobe, each frame at the pose of i / 30 s', async () => {
    const { page, frame } = await open({ clock: true });
    // One second: every frame costs SwiftShader a fifth of a second at 720p, per container.
    const take = await recordExactTake(page, frame, FPS);
    expect(take.payload.durationMs).toBe(1000);
    const move = moveFromPath(take.payload.cameraPath);
    expect(move.durationMs).toBe(1000);
    expect(angleDeg(move.poseAt(0).quaternion, move.poseAt(1000).quaternion)).toBeGreaterThan(10);

    const live = { camera: await debugCamera(frame), canvas: await frame.evaluate(() => (window as any).__studio.canvasStats()) };
    for (const container of ['mp4', 'webm'] as const) {
      await chooseRender(frame, { fps: FPS, resolution: '720p', container });
      const before = (await studioEvents(page)).filter((e) => e.type === 'render.completed').length;
      await frame.getByRole('button', { name: 'Render', exact: true }).click();
      await page.waitForFunction(
        (n) => (window as any).studioEvents.filter((e: { type: string }) => e.type === 'render.completed').length > n,
        before,
        { timeout: RENDER_TIMEOUT },
      );
      const events = await studioEvents(page);
      const started = events.filter((e) => e.type === 'render.started').pop()!;
      const completed = events.filter((e) => e.type === 'render.completed').pop()!;
      expect(started.payload).toEqual({ durationMs: 1000, mimeType: `video/${container}`, frames: 30, fps: 30, width: 1280, height: 720 });
      expect(completed.payload).toMatchObject({
        durationMs: 1000,
        frames: 30,
        fps: 30,
        width: 1280,
        height: 720,
        mimeType: expect.stringMatching(container === 'mp4' ? /^video\/mp4; codecs="avc1\./ : /^video\/webm; codecs="vp09\./),
        video: { blob: true, size: completed.payload.sizeBytes },
      });
      expect(completed.payload.cameraPath).toEqual(take.payload.cameraPath);

      // FFmpeg, not the muxer that wrote it, counts the frames and reads the duration.
      const bytes = await postedBlob(page, 'render.completed');
      expect(bytes.length).toBe(completed.payload.sizeBytes);
      const probed = await probeVideo(bytes);
      expect(probed).toMatchObject({
        codec: container === 'mp4' ? 'h264' : 'vp9',
        formatName: container === 'mp4' ? expect.stringContaining('mp4') : expect.stringContaining('webm'),
        width: 1280,
        height: 720,
        framesRead: 30,
      });
      expect(probed.durationS).toBeCloseTo(1.0, 2);

      // Frame i was drawn at the move's pose at i / 30 s.
      const drawn = await drawnPoses(frame);
      expect(drawn.map((d) => d.t)).toEqual(Array.from({ length: 30 }, (_, i) => (i * 1000) / 30));
      drawn.forEach((d, i) => {
        const pose = move.poseAt((i * 1000) / 30);
        d.position.forEach((v, k) => expect(v).toBeCloseTo(pose.position[k], 6));
        expect(angleDeg(d.quaternion, pose.quaternion)).toBeLessThan(1e-3);
        expect(d.focalLengthMm).toBeCloseTo(pose.focalLengthMm, 6);
      });

      // The pictures follow the move: the camera turned, so the first and last frames differ
      // far more than two neighbours do (measured over 29 steps: about three times as much).
      const [first, second, last] = await Promise.all([decodeFrame(bytes, 0), decodeFrame(bytes, 1), decodeFrame(bytes, 29)]);
      const firstStats = await imageStats(first);
      expect(firstStats).toMatchObject({ width: 1280, height: 720 });
      expect(firstStats.lumaStdDev).toBeGreaterThan(2);
      expect(await meanDifference(first, last)).toBeGreaterThan(2 * (await meanDifference(first, second)));
      await writeFile(artifactPath(`render-last-frame-${container}.png`), last);
    }

    // The live view came back exactly: pose, lens, canvas size, quality no longer pinned.
    const after = await debugCamera(frame);
    expect(after).toEqual(live.camera);
    const canvas = await frame.evaluate(() => (window as any).__studio.canvasStats());
    expect([canvas.width, canvas.height]).toEqual([live.canvas.width, live.canvas.height]);
    expect((await frame.evaluate(() => (window as any).__studio.quality())).pinned).toBe(false);
    await frame.waitForFunction(() => document.getElementById('studio-live')?.textContent === 'Render 2 finished and handed to the page.');
    expect(await frame.locator('#renders li').count()).toBe(2);
    // Framed: no download link the sandbox would refuse; the parent has the files.
    expect(await frame.locator('#renders a[download]').count()).toBe(0);
  }, 600_000);

  it("renders the timeline's keyframed move in the move's own frame (2.39:1): 24 frames of 1280 × 536, each at the move's pose", async () => {
    const { page, frame } = await open();
    const doc = scopeMoveDocument(
      [
        { t: 0, easing: 'ease-in-out' },
        { t: 1000, easing: 'linear' },
      ],
      1000,
      0,
    );
    await importMove(frame, doc);

    await chooseRender(frame, { fps: 24, resolution: '720p', container: 'webm' });
    const source = frame.getByLabel('Source', { exact: true });
    expect(await source.inputValue()).toBe('timeline');
    expect(await frame.locator('#render-source').innerText()).toBe('2 keyframes · 1.0 s');
    expect(await frame.locator('#render-resolution option[value="720p"]').innerText()).toBe('720p (1280 × 536)');
    await frame.getByRole('button', { name: 'Render', exact: true }).click();
    const completed = await waitForEvent(page, 'render.completed', RENDER_TIMEOUT);
    expect(completed.payload).toMatchObject({ frames: 24, fps: 24, width: 1280, height: 536, durationMs: 1000 });
    const path = completed.payload.cameraPath as CameraPathDocument;
    expect(path.keyframes).toEqual(doc.keyframes);
    expect(path.video.aspect).toBe(2.39);

    const move = moveFromDocument(path);
    const drawn = await drawnPoses(frame);
    expect(drawn).toHaveLength(24);
    drawn.forEach((d, i) => {
      const pose = move.poseAt((i * 1000) / 24);
      d.position.forEach((v, k) => expect(v).toBeCloseTo(pose.position[k], 6));
      expect(angleDeg(d.quaternion, pose.quaternion)).toBeLessThan(1e-3);
      expect(d.focalLengthMm).toBeCloseTo(pose.focalLengthMm, 6);
    });
    const probed = await probeVideo(await postedBlob(page, 'render.completed'));
    expect(probed).toMatchObject({ codec: 'vp9', width: 1280, height: 536, framesRead: 24 });
    expect(probed.durationS).toBeCloseTo(1.0, 2);
  }, 300_000);

  it('cancels mid-render: render.cancelled, no render.completed, nothing listed, the view restored; takes wait while it runs', async () => {
    const { page, frame } = await open();
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', 30_000);
    // A render cannot start during a take.
    await frame.getByLabel('Frame rate').scrollIntoViewIfNeeded();
    expect(await frame.getByRole('button', { name: 'Render', exact: true }).isDisabled()).toBe(true);
    expect(await frame.locator('#render-status').innerText()).toBe('A take is recording: stop it to render.');
    const drawn = await frame.evaluate(() => (window as any).__studio.renderedFrames() as number);
    await frame.waitForFunction((n) => (window as any).__studio.renderedFrames() > n + 5, drawn, { timeout: 30_000 });
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    await waitForEvent(page, 'recording.completed', 30_000);

    // A minute-long move (3 600 frames at 60 fps): however fast this machine draws, the cancel
    // lands mid-render.
    const long = scopeMoveDocument(
      [
        { t: 0, easing: 'linear' },
        { t: 60_000, easing: 'linear' },
      ],
      60_000,
      0,
    );
    await importMove(frame, long, 'long.json');
    // The import puts the rig in the move's frame (2.39:1); the live view is that, once drawn.
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().aspect - 2.39) < 1e-6);
    const live = { camera: await debugCamera(frame), canvas: await frame.evaluate(() => (window as any).__studio.canvasStats()) };
    await chooseRender(frame, { fps: 60, resolution: '720p', container: 'webm' });
    await frame.getByLabel('Source', { exact: true }).selectOption('timeline');
    // By keyboard: Render, then focus moves to Cancel render (the pressed button turns off).
    await frame.getByRole('button', { name: 'Render', exact: true }).focus();
    await page.keyboard.press('Enter');
    await waitForEvent(page, 'render.started', 60_000);
    await frame.waitForFunction(() => document.activeElement?.id === 'render-cancel');
    await frame.waitForFunction(() =>
      /^Rendering \d+ frames at 1280 × 536, 60 fps, WebM \(VP9\)\.$/.test(document.getElementById('studio-live')?.textContent ?? ''),
    );
    await frame.waitForFunction(() => (window as any).__studio.state().perform.render.framesDone >= 3, undefined, {
      timeout: RENDER_TIMEOUT,
    });

    await page.locator('#studio-under-test').screenshot({ path: artifactPath('render-running.png') });
    // A take cannot start while rendering (the R key and the button alike).
    const record = frame.getByRole('button', { name: 'Start recording' });
    expect(await record.getAttribute('aria-disabled')).toBe('true');
    await record.click({ force: true });
    await frame.locator('canvas').press('KeyR');

    await frame.getByRole('button', { name: 'Cancel render' }).focus();
    await page.keyboard.press('Enter');
    const cancelled = await waitForEvent(page, 'render.cancelled', 60_000);
    expect(cancelled.payload).toMatchObject({ reason: 'user', frames: expect.any(Number) });
    expect(cancelled.payload.framesDone).toBeGreaterThanOrEqual(3);
    expect(cancelled.payload.framesDone).toBeLessThan(cancelled.payload.frames);
    await frame.waitForFunction(() => (window as any).__studio.state().perform.render.rendering === false);

    const types = (await studioEvents(page)).map((e) => e.type);
    expect(types).not.toContain('render.completed');
    expect(types.filter((t) => t === 'recording.started')).toHaveLength(1);
    expect(await frame.locator('#renders li').count()).toBe(0);
    expect(await frame.locator('#render-status').innerText()).toBe('Render cancelled: nothing was kept.');
    expect(await debugCamera(frame)).toEqual(live.camera);
    const canvas = await frame.evaluate(() => (window as any).__studio.canvasStats());
    expect([canvas.width, canvas.height]).toEqual([live.canvas.width, live.canvas.height]);
    expect((await frame.evaluate(() => (window as any).__studio.quality())).pinned).toBe(false);
    expect(await frame.getByRole('button', { name: 'Start recording' }).getAttribute('aria-disabled')).toBe('false');
    await frame.waitForFunction(() => document.activeElement?.id === 'render-start');
    // A take, then a render at 60 fps: on a busy machine over five minutes of software WebGL.
  }, 480_000);

  it('a render running when the session ends is cancelled (reason session_ended) before session.ended; nothing is offered in the frame', async () => {
    const { page, frame } = await open();
    await recordShortTake(page, frame, { frames: 5, timeoutMs: 30_000 });
    await chooseRender(frame, { fps: 60, resolution: '720p', container: 'mp4' });
    await frame.getByRole('button', { name: 'Render', exact: true }).click();
    await waitForEvent(page, 'render.started', 60_000);
    await frame.waitForFunction(() => (window as any).__studio.state().perform.render.framesDone >= 2, undefined, {
      timeout: RENDER_TIMEOUT,
    });

    const sessionId = (await studioEvents(page)).find((e) => e.type === 'ready')!.payload.embedSessionId as string;
    expect((await stack.api.http().delete(`/v1/embed-sessions/${sessionId}`).set(stack.org.auth)).status).toBe(204);
    await waitForEvent(page, 'session.ended', 20_000);
    const events = await studioEvents(page);
    const types = events.map((e) => e.type);
    expect(types).not.toContain('render.completed');
    expect(events.find((e) => e.type === 'render.cancelled')!.payload).toMatchObject({ reason: 'session_ended' });
    expect(types.indexOf('render.cancelled')).toBeLessThan(types.indexOf('session.ended'));
    await frame.getByText('handed to the page around this studio').waitFor({ timeout: 10_000 });
    expect(await frame.locator('a[download]').count()).toBe(0);
  }, 300_000);

  it('at the minimum frame (perform, 640×360) the Render section fits the side panel and works from the keyboard', async () => {
    const { page, frame } = await open({ size: { width: 640, height: 360 } });
    const panel = frame.locator('#side-panel');
    const render = frame.locator('#render-start');
    await render.scrollIntoViewIfNeeded();
    // Off, and saying why, until there is a take.
    expect(await render.isDisabled()).toBe(true);
    expect(await frame.getByLabel('Source', { exact: true }).inputValue()).toBe('timeline');
    expect(await frame.locator('#render-source').innerText()).toBe('The timeline has no keyframes yet.');
    const box = (await panel.boundingBox())!;
    for (const id of ['render-source-choice', 'render-fps', 'render-container', 'render-resolution', 'render-start']) {
      const control = (await frame.locator(`#${id}`).boundingBox())!;
      expect(control.x).toBeGreaterThanOrEqual(box.x - 0.5);
      expect(control.x + control.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
    }
    expect(await panel.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.locator('#studio-under-test').screenshot({ path: artifactPath('render-section-640x360.png') });
    // Reached by Tab from the frame rate: format, resolution (the button is off without a take).
    await frame.locator('#render-fps').focus();
    await page.keyboard.press('Tab');
    expect(await frame.evaluate(() => document.activeElement?.id)).toBe('render-container');
    await page.keyboard.press('Tab');
    expect(await frame.evaluate(() => document.activeElement?.id)).toBe('render-resolution');
  }, 120_000);

  it('opened on its own (not framed), the studio offers a finished render as a download', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    await page.goto(session.body.url as string);
    await page.waitForFunction(() => (window as any).__studio?.firstFrameAt != null, undefined, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Start recording' }).click();
    const drawn = await page.evaluate(() => (window as any).__studio.renderedFrames() as number);
    await page.waitForFunction((n) => (window as any).__studio.renderedFrames() > n + 3, drawn, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await page.waitForFunction(() => (window as any).__studio.state().perform.lastTake !== null, undefined, { timeout: 30_000 });
    // The take too: not framed, the page may download, so its files are links.
    const take = page.locator('#recordings li[data-take="1"]');
    expect(await take.getByRole('link', { name: 'Download take 1 video (WebM)' }).getAttribute('href')).toMatch(/^blob:/);
    expect(await take.getByRole('link', { name: 'Download take 1 camera path (JSON)' }).getAttribute('download')).toBe(
      'take-1-camera-path.json',
    );
    await chooseRender(page.mainFrame(), { fps: 24, resolution: '720p', container: 'webm' });
    await page.getByRole('button', { name: 'Render', exact: true }).click();
    const link = page.locator('#renders a[download]');
    await link.waitFor({ timeout: RENDER_TIMEOUT });
    expect(await link.getAttribute('download')).toBe('render-1.webm');
    expect(await link.getAttribute('href')).toMatch(/^blob:/);
    expect(await link.getAttribute('aria-label')).toBe('Download render 1 (render-1.webm)');
  }, 300_000);

  it("a live take's WebM carries its duration and Cues: ffprobe reads the length, FFmpeg and the browser seek in it", async () => {
    const { page, frame } = await open();
    const completed = await recordShortTake(page, frame, { frames: 15, timeoutMs: 60_000 });
    expect(completed.payload.mimeType).toMatch(/^video\/webm/);

    const bytes = await postedBlob(page, 'recording.completed');
    await writeFile(artifactPath('take.webm'), bytes);
    const probed = await probeVideo(bytes);
    expect(probed.durationS).not.toBeNull();
    expect(probed.durationS!).toBeGreaterThan(0.5);
    expect(probed.durationS!).toBeLessThan(completed.payload.durationMs / 1000 + 0.5);
    // The Cues element: the index players seek with (MediaRecorder writes none).
    expect(matroskaSegmentChildren(bytes)).toContain('Cues');
    const middle = probed.durationS! / 2;
    const landed = await seekTimestamp(bytes, middle);
    expect(landed).toBeLessThanOrEqual(middle + 0.1);

    // The browser, given the file as a partner page would be (a plain page: the reference
    // partner page's CSP has no media-src blob:), knows its length and seeks in it.
    const player = await page.context().newPage();
    const seek = await player.evaluate(
      async ({ base64, to }) => {
        const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const video = document.createElement('video');
        video.muted = true;
        video.src = URL.createObjectURL(new Blob([data], { type: 'video/webm' }));
        await new Promise((resolve, reject) => {
          video.onloadedmetadata = resolve;
          video.onerror = () => reject(new Error(`the video did not load: ${video.error?.code} ${video.error?.message}`));
        });
        const duration = video.duration;
        const seekable = video.seekable.length > 0 ? video.seekable.end(0) : 0;
        video.currentTime = to;
        await new Promise((resolve) => (video.onseeked = resolve));
        return { duration, seekable, currentTime: video.currentTime };
      },
      { base64: bytes.toString('base64'), to: middle },
    );
    expect(Number.isFinite(seek.duration)).toBe(true);
    expect(seek.duration).toBeCloseTo(probed.durationS!, 1);
    expect(seek.seekable).toBeGreaterThan(0);
    expect(seek.currentTime).toBeCloseTo(middle, 1);
  }, 120_000);
});

/** Mean absolute difference of two same-sized PNGs' RGB bytes. */
async function meanDifference(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((png) => sharp(png).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i] - y[i]);
  return sum / x.length;
}
