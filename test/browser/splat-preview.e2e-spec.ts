import { BrowserContext, Frame } from 'playwright-core';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { setUpEmbedStack } from '../support/embed-stack';
import { embedStudio } from '../support/studio-frame';

/** Software WebGL (SwiftShader) draws splats slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 60_000;
const SPLATS = 20_000;
const PREVIEW = 2_000;

interface LevelSample {
  level: 'preview' | 'full' | null;
  count: number;
  drawn: number;
}

/**
 * Runs in every frame of the page before its scripts: samples the studio's splat level, count
 * and drawn splats on every animation frame, keeping each change, so the test sees the preview
 * even when the whole world follows it within a second.
 */
function recordSplatLevels(): void {
  const samples: LevelSample[] = [];
  (window as any).__splatLevels = samples;
  const sample = () => {
    const studio = (window as any).__studio;
    if (studio) {
      const { level, count, drawn } = studio.splats() as LevelSample;
      const last = samples[samples.length - 1];
      if (!last || last.level !== level || last.count !== count || last.drawn > 0 !== drawn > 0) samples.push({ level, count, drawn });
    }
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
}

const levels = (frame: Frame) => frame.evaluate(() => (window as any).__splatLevels as LevelSample[]);

/**
 * A splat world of more than twice SPLAT_PREVIEW_COUNT splats is stored with a coarse preview;
 * the studio draws the preview first and swaps in the whole world once it has decoded, with no
 * empty frame between the two (docs/embed.md, "Splat worlds").
 */
describe('a splat world drawn from its preview first, in a real browser', () => {
  const stack = setUpEmbedStack({
    worker: () => ({ PROCEDURAL_SPLATS: 'true', PROCEDURAL_SPLAT_COUNT: String(SPLATS), SPLAT_PREVIEW_COUNT: String(PREVIEW) }),
  });
  const contexts: BrowserContext[] = [];
  let sceneId: string;

  beforeAll(async () => {
    sceneId = await readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at noon, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  it('draws the preview, then the whole world, with splats on every frame in between', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    await context.addInitScript(recordSplatLevels);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    expect(session.status).toBe(201);
    const { frame } = await embedStudio(page, session.body.url as string, { width: 960, height: 540 });

    await frame.waitForFunction(() => (window as any).__studio?.fullSplatFrameAt != null, undefined, { timeout: RENDER_TIMEOUT });
    const seen = (await levels(frame)).filter((s) => s.level !== null);
    const firstDrawn = seen.findIndex((s) => s.drawn > 0);
    expect(firstDrawn).toBeGreaterThanOrEqual(0);
    // The first splats on screen are the preview's…
    expect(seen[firstDrawn].level).toBe('preview');
    expect(seen[firstDrawn].count).toBeLessThanOrEqual(PREVIEW);
    expect(seen[firstDrawn].count).toBeGreaterThan(PREVIEW * 0.7);
    // …then the whole world's, and no frame between them drew nothing.
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ level: 'full', count: SPLATS });
    expect(last.drawn).toBeGreaterThan(0);
    expect(seen.slice(firstDrawn).every((s) => s.drawn > 0)).toBe(true);

    const times = await frame.evaluate(() => ({
      first: (window as any).__studio.firstSplatFrameAt as number,
      full: (window as any).__studio.fullSplatFrameAt as number,
    }));
    expect(times.full).toBeGreaterThanOrEqual(times.first);
    expect(await frame.locator('.detail-note').isHidden()).toBe(true);
    expect((await frame.evaluate(() => (window as any).__studio.canvasStats())).nonBlank).toBe(true);
  });

  it('keeps working on the whole world: a lens change re-projects it', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    const { frame } = await embedStudio(page, session.body.url as string, { width: 960, height: 540 });
    await frame.waitForFunction(() => (window as any).__studio?.fullSplatFrameAt != null, undefined, { timeout: RENDER_TIMEOUT });
    const before = await frame.evaluate(() => (window as any).__studio.camera().fov as number);
    await frame.getByRole('slider', { name: 'Focal length' }).fill('85');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 85) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    // The camera's projection is set as a frame is drawn: a narrower one means a frame at 85 mm.
    await frame.waitForFunction((fov) => (window as any).__studio.camera().fov < fov, before, { timeout: RENDER_TIMEOUT });
    expect(await frame.evaluate(() => (window as any).__studio.splats())).toMatchObject({ level: 'full', count: SPLATS });
    expect((await frame.evaluate(() => (window as any).__studio.splats())).drawn).toBeGreaterThan(0);
  });
});
