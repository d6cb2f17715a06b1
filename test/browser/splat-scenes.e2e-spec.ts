import { BrowserContext, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { artifactPath } from '../support/browser';
import { setUpEmbedStack } from '../support/embed-stack';
import { frameClock, installFrameClock } from '../support/frame-clock';
import { EmbeddedStudio, embedStudio, imageStats, postedBlob, StudioMode, waitForEvent, waitForVersion } from '../support/studio-frame';
import { decodeFrame, probeVideo } from '../support/video-probe';

type Vec3 = [number, number, number];

/** Software WebGL (SwiftShader) draws splats slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 60_000;
/**
 * Small enough for SwiftShader on a shared CI machine (it costs ~20 ms of CPU per thousand splats
 * a frame there, so a take at 500k would record one frame in ten seconds), big enough to cover
 * the scene. Full-size worlds are measured by `npm run bench:studio`, not here.
 */
const SPLATS = 20_000;

const FRAME_SIZE: Record<StudioMode, { width: number; height: number }> = {
  edit: { width: 960, height: 600 },
  perform: { width: 960, height: 540 },
  edit_and_perform: { width: 960, height: 600 },
};
/**
 * The smallest perform frame the studio supports, for the takes: a take draws every frame, and
 * SwiftShader's time per frame grows with the pixels (not for depth of field, whose blur must
 * show at the usual size).
 */
const SMALLEST_PERFORM = { width: 640, height: 360 };

const camera = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera());
const splats = (frame: Frame) =>
  frame.evaluate(() => (window as any).__studio.splats() as { count: number; drawn: number; level: string | null });

/** Waits until the version is on screen and Spark has sorted and drawn its splats once. */
async function waitForSplats(frame: Frame, version: number): Promise<void> {
  await waitForVersion(frame, version, RENDER_TIMEOUT);
  await frame.waitForFunction(() => (window as any).__studio.firstSplatFrameAt !== null, undefined, { timeout: RENDER_TIMEOUT });
}

/** Mean absolute difference between horizontal neighbours: what depth of field takes away. */
async function sharpness(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  let sum = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 1; x < info.width; x++) sum += Math.abs(data[y * info.width + x] - data[y * info.width + x - 1]);
  }
  return sum / (info.height * (info.width - 1));
}

/**
 * A splat world (the procedural generator with PROCEDURAL_SPLATS on: an SPZ sampled from the
 * scene plus its collider, the shape World Labs' worlds have) in Debian's Chromium, with no
 * network: Spark draws it in every mode, and the perform tools — lens, depth of field,
 * recording — work on it. Focus on the collider: provider-scenes.e2e-spec.ts (a world whose
 * ground is a known plane).
 */
describe('a splat world in the studio, in a real browser', () => {
  const stack = setUpEmbedStack({ worker: () => ({ PROCEDURAL_SPLATS: 'true', PROCEDURAL_SPLAT_COUNT: String(SPLATS) }) });
  let sceneId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    sceneId = await readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at noon, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(
    mode: StudioMode,
    options: { clockFps?: number; size?: { width: number; height: number } } = {},
  ): Promise<EmbeddedStudio & { page: Page }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    if (options.clockFps) await installFrameClock(context, stack.embedOrigin, options.clockFps);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode });
    expect(session.status).toBe(201);
    const embedded = await embedStudio(page, session.body.url as string, options.size ?? FRAME_SIZE[mode]);
    return { ...embedded, page };
  }

  describe.each<StudioMode>(['edit', 'perform', 'edit_and_perform'])('%s mode', (mode) => {
    it('draws the splats: every splat loaded, a sorted frame on screen, a varied canvas', async () => {
      const { frame, page } = await open(mode);
      await waitForSplats(frame, 1);
      expect(await splats(frame)).toEqual({ count: SPLATS, drawn: expect.any(Number), level: 'full' });
      expect((await splats(frame)).drawn).toBeGreaterThan(0);
      const stats = await frame.evaluate(() => (window as any).__studio.canvasStats());
      expect(stats).toMatchObject({ nonBlank: true });
      expect(stats.distinctColors).toBeGreaterThan(50);
      const path = artifactPath(`splat-${mode}.png`);
      await page.locator('#studio-under-test').screenshot({ path });
    });
  });

  it('an edit makes version 2 of the world: a new splat, shown in place, with the turn in the history', async () => {
    const editScene = await readyScene(stack.api, stack.org, { prompt: 'A bright sunny meadow with pines at noon' });
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId: editScene, origin: stack.partner.origin, mode: 'edit' });
    const { frame } = await embedStudio(page, session.body.url as string, FRAME_SIZE.edit);
    await waitForSplats(frame, 1);
    const lumaBefore = (await frame.evaluate(() => (window as any).__studio.canvasStats())).meanLuma as number;

    await frame.locator('#edit-submit[aria-disabled="false"]').waitFor({ timeout: RENDER_TIMEOUT });
    await frame.getByRole('textbox', { name: 'Edit instruction' }).fill('make it night');
    await frame.getByRole('button', { name: 'Apply edit' }).click();
    const done = frame.locator('#edit-history li[data-status="succeeded"]');
    await done.waitFor({ timeout: RENDER_TIMEOUT });
    expect(await done.innerText()).toMatch(/make it night[\s\S]*version 2/);
    await waitForVersion(frame, 2, RENDER_TIMEOUT);
    await frame.waitForFunction(() => (window as any).__studio.splats().drawn > 0, undefined, { timeout: RENDER_TIMEOUT });
    expect((await splats(frame)).count).toBe(SPLATS);
    // Same camera, the night world's splats (their light is baked in): darker on screen.
    const after = await frame.evaluate(() => (window as any).__studio.canvasStats());
    expect(after.nonBlank).toBe(true);
    expect(after.meanLuma).toBeLessThan(lumaBefore * 0.8);
  });

  it('changing the focal length changes the projection of the splat world', async () => {
    const { frame } = await open('perform');
    await waitForSplats(frame, 1);
    const before = await camera(frame);
    const shotBefore = await frame.locator('canvas').screenshot();
    await frame.getByRole('slider', { name: 'Focal length' }).fill('135');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 135) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    const after = await camera(frame);
    expect(after.projectionMatrix[5]).toBeCloseTo(1 / Math.tan((after.fov * Math.PI) / 360), 6);
    expect(after.fov).toBeLessThan(before.fov);
    expect(await frame.locator('#fov-readout').innerText()).toContain(`${after.horizontalFov.toFixed(1)}° horizontal`);
    // What is drawn changed with it (Spark re-projects every splat through the new lens).
    const shotAfter = await frame.locator('canvas').screenshot();
    expect(shotAfter.equals(shotBefore)).toBe(false);
  });

  it("depth of field blurs the splats through Spark, from the lens's aperture and focus", async () => {
    const { frame } = await open('perform');
    await waitForSplats(frame, 1);
    // Lens first, depth of field last: one blurred frame to draw, not three. 200 mm at f/1.4
    // (the widest), focused at 30 cm: the world, tens of metres away, is far out of focus.
    await frame.getByRole('slider', { name: 'Focal length' }).fill('200');
    await frame.getByRole('slider', { name: 'Aperture' }).fill('0');
    await frame.getByRole('slider', { name: 'Focus distance' }).fill('0');
    await frame.waitForFunction(
      () => {
        const c = (window as any).__studio.camera();
        return c.fNumber === 1.4 && c.focusDistance < 0.35 && Math.abs(c.focalLengthMm - 200) < 1e-6;
      },
      undefined,
      { timeout: RENDER_TIMEOUT },
    );
    await frame.evaluate(
      () =>
        new Promise((resolve) => {
          (window as any).__studio.canvasStats();
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        }),
    );
    const sharpBefore = await sharpness(await frame.locator('canvas').screenshot());
    const frames = await frame.evaluate(() => (window as any).__studio.renderedFrames());
    await frame.getByLabel('Depth of field').check();
    await frame.waitForFunction((n) => (window as any).__studio.renderedFrames() > n, frames, { timeout: RENDER_TIMEOUT });
    // A drawn frame is not yet a composited one: read it back (which waits for SwiftShader), and
    // let two animation frames pass so the screenshot shows it.
    await frame.evaluate(
      () =>
        new Promise((resolve) => {
          (window as any).__studio.canvasStats();
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        }),
    );
    const blurred = await sharpness(await frame.locator('canvas').screenshot());
    expect(blurred).toBeLessThan(sharpBefore * 0.8);
  }, 180_000);

  it('records a take of the splat world: a WebM and its camera path', async () => {
    const { page, frame } = await open('perform', { size: SMALLEST_PERFORM });
    await waitForSplats(frame, 1);
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    const start: Vec3 = (await camera(frame)).position;
    await page.keyboard.down('KeyW');
    await frame.waitForFunction(
      (s) => {
        const p = (window as any).__studio.camera().position as number[];
        return Math.hypot(p[0] - s[0], p[1] - s[1], p[2] - s[2]) > 0.5;
      },
      start,
      { timeout: RENDER_TIMEOUT },
    );
    await page.keyboard.up('KeyW');
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    const completed = await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
    expect(completed.payload.mimeType).toMatch(/^video\/webm/);
    expect(completed.payload.sizeBytes).toBeGreaterThan(0);
    const head = await page.evaluate(async () => {
      const event = ((window as any).studioEvents as any[]).find((e) => e.type === 'recording.completed');
      return Array.from(new Uint8Array(await (event.payload.video as Blob).arrayBuffer()).slice(0, 4));
    });
    expect(head).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    const path = completed.payload.cameraPath;
    expect(path).toMatchObject({ format: 'scene-studio.camera-path', sceneVersion: 1, coordinateSystem: 'gltf' });
    expect(path.samples.length).toBeGreaterThan(2);
  });

  it('renders a camera move of the splat world offline: every frame drawn once Spark sorted it for that view, 12 frames by ffprobe', async () => {
    // A take of exactly 0.5 s (12 frames of 1/24 s on the test's clock) orbiting the world: every
    // frame costs SwiftShader about a second at 720p, twice (the take, then the render).
    const { page, frame } = await open('perform', { clockFps: 24, size: SMALLEST_PERFORM });
    await waitForSplats(frame, 1);
    await frameClock.hold(frame);
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    await page.keyboard.down('ArrowLeft');
    try {
      await frameClock.advance(frame, 12, 180_000);
    } finally {
      await page.keyboard.up('ArrowLeft');
    }
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    expect((await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT)).payload.durationMs).toBe(500);
    await frameClock.release(frame);

    const rate = frame.getByLabel('Frame rate');
    await rate.scrollIntoViewIfNeeded();
    await rate.selectOption('24');
    await frame.getByLabel('Resolution').selectOption('720p');
    await frame.getByLabel('Format').selectOption('webm');
    await frame.getByRole('button', { name: 'Render', exact: true }).click();
    const completed = await waitForEvent(page, 'render.completed', 300_000);
    expect(completed.payload).toMatchObject({ frames: 12, fps: 24, width: 1280, height: 720, durationMs: 500 });

    const drawn = (await frame.evaluate(() => (window as any).__studio.state().perform.render.drawnPoses)) as { splats: number }[];
    expect(drawn).toHaveLength(12);
    for (const d of drawn) expect(d.splats).toBeGreaterThan(0);
    const bytes = await postedBlob(page, 'render.completed');
    const probed = await probeVideo(bytes);
    expect(probed).toMatchObject({ codec: 'vp9', width: 1280, height: 720, framesRead: 12 });
    expect(probed.durationS).toBeCloseTo(0.5, 2);
    for (const index of [0, 11]) {
      const png = await decodeFrame(bytes, index);
      await sharp(png).toFile(artifactPath(`splat-render-frame-${index}.png`));
      const stats = await imageStats(png);
      expect(stats.lumaStdDev).toBeGreaterThan(2);
      expect(stats.distinctColors).toBeGreaterThan(50);
    }
  }, 600_000);
});
