import { BrowserContext, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { artifactPath } from '../support/browser';
import { MOVED_FROM } from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { EmbeddedStudio, embedStudio, StudioMode, waitForEvent, waitForVersion } from '../support/studio-frame';

type Vec3 = [number, number, number];

interface DebugCamera {
  position: Vec3;
  fov: number;
  horizontalFov: number;
  aspect: number;
  focalLengthMm: number;
  filmGauge: number;
  focusDistance: number;
  roll: number;
}

/** Software WebGL (SwiftShader) draws slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 30_000;

const deg = (rad: number) => (rad * 180) / Math.PI;
/** The angle a gate `sizeMm` across subtends behind a `focalMm` lens. */
const angle = (sizeMm: number, focalMm: number) => deg(2 * Math.atan(sizeMm / 2 / focalMm));

/** The RGB bytes of a PNG screenshot. */
const rawPixels = async (png: Buffer): Promise<Buffer> => (await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;

const camera = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera() as DebugCamera);
const framing = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state().perform.framing);
const quality = (frame: Frame) =>
  frame.evaluate(
    () => (window as any).__studio.quality() as { pixelRatio: number; maxPixelRatio: number; fps: number | null; pinned: boolean },
  );

/** Holds a key in the studio until `done(arg)` holds in the frame (or the deadline passes). */
async function holdKeyUntil(page: Page, frame: Frame, key: string, done: (arg: Vec3 | null) => unknown, arg: Vec3 | null): Promise<void> {
  await frame.locator('canvas').click({ position: { x: 5, y: 5 } });
  await page.keyboard.down(key);
  try {
    await frame.waitForFunction(done, arg, { timeout: RENDER_TIMEOUT });
  } finally {
    await page.keyboard.up(key);
  }
}

/**
 * Lens and framing like a cinema camera, and small frames and slow machines (issue 14, items 4
 * and 6), in Debian's Chromium against the real stack: prime stops and typed focal lengths,
 * sensor and aspect presets with their fields of view, focus in metres and feet with a focus
 * aid, guides, the active preset and saved views, the compact toolbar, and adaptive quality.
 */
describe('lens and framing, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  let sceneId: string;

  beforeAll(async () => {
    sceneId = await readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at sunset, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(
    mode: StudioMode,
    size: { width: number; height: number },
    options: { quality?: Record<string, unknown> } = {},
  ): Promise<EmbeddedStudio & { page: Page }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    if (options.quality) {
      // docs/performance.md: the studio origin's `scene-studio.quality` overrides the adaptive
      // quality; a target no machine reaches forces it to lower the resolution on any hardware.
      await context.addInitScript(
        ({ origin, value }) => {
          if (location.origin === origin) localStorage.setItem('scene-studio.quality', value);
        },
        { origin: stack.embedOrigin, value: JSON.stringify(options.quality) },
      );
    }
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const res = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode });
    expect(res.status).toBe(201);
    const embedded = await embedStudio(page, res.body.url as string, size);
    await waitForVersion(embedded.frame, 1, RENDER_TIMEOUT);
    return { ...embedded, page };
  }

  it('prime stops, a typed focal length, and sensor and aspect presets set the fields of view the formula gives', async () => {
    const { page, frame } = await open('perform', { width: 960, height: 540 });

    // A prime: 85 mm on full frame 16:9 (a 36 × 20.25 mm gate).
    await frame.getByRole('button', { name: '85 mm prime' }).click();
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 85) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    let cam = await camera(frame);
    expect(cam.fov).toBeCloseTo(angle(20.25, 85), 6);
    expect(cam.horizontalFov).toBeCloseTo(angle(36, 85), 4);
    expect(await frame.getByRole('button', { name: '85 mm prime' }).getAttribute('aria-pressed')).toBe('true');
    expect(await frame.getByRole('button', { name: '50 mm prime' }).getAttribute('aria-pressed')).toBe('false');
    expect(await frame.locator('#fov-readout').innerText()).toBe(
      `Field of view ${angle(36, 85).toFixed(1)}° horizontal × ${angle(20.25, 85).toFixed(1)}° vertical`,
    );

    // Typed: validated, clamped to the lens and announced.
    const entry = frame.getByRole('textbox', { name: 'Focal length' });
    expect(await entry.inputValue()).toBe('85');
    await entry.fill('600');
    await entry.press('Enter');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 200) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    expect(await entry.inputValue()).toBe('200');
    await frame.waitForFunction(() => document.getElementById('studio-live')?.textContent === "Focal length 200 mm, the lens's limit.");
    await entry.fill('wide');
    await entry.press('Enter');
    expect(await entry.getAttribute('aria-invalid')).toBe('true');
    expect((await camera(frame)).focalLengthMm).toBeCloseTo(200, 6);
    // Escape gives the box back the lens in use.
    await entry.press('Escape');
    expect(await entry.inputValue()).toBe('200');
    expect(await entry.getAttribute('aria-invalid')).toBeNull();
    await entry.fill('35');
    await entry.press('Enter');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 35) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    expect(await entry.getAttribute('aria-invalid')).toBeNull();

    // Super 35 (24.89 × 18.66 mm): at 16:9 the gate is 24.89 × 14.0 mm; the same lens sees less.
    const fullFrame = await camera(frame);
    await frame.getByLabel('Sensor').selectOption('super-35');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().filmGauge - 24.89) < 1e-9, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    cam = await camera(frame);
    expect(cam.fov).toBeCloseTo(angle(24.89 / (16 / 9), 35), 6);
    expect(cam.horizontalFov).toBeCloseTo(angle(24.89, 35), 4);
    expect(cam.fov).toBeLessThan(fullFrame.fov);

    // 2.39:1: the frame on screen, the canvas and the projection take the new shape.
    const canvasBefore = await frame.evaluate(() => (window as any).__studio.canvasStats());
    await frame.getByLabel('Aspect ratio').selectOption('2.39:1');
    await frame.waitForFunction(() => (window as any).__studio.camera().aspect === 2.39, undefined, { timeout: RENDER_TIMEOUT });
    cam = await camera(frame);
    expect(cam.fov).toBeCloseTo(angle(24.89 / 2.39, 35), 6);
    expect(cam.horizontalFov).toBeCloseTo(angle(24.89, 35), 4);
    const canvasAfter = await frame.evaluate(() => (window as any).__studio.canvasStats());
    expect(canvasBefore.width / canvasBefore.height).toBeCloseTo(16 / 9, 1);
    expect(canvasAfter.width / canvasAfter.height).toBeCloseTo(2.39, 1);
    const box = (await frame.locator('.viewport-frame').boundingBox())!;
    expect(box.width / box.height).toBeCloseTo(2.39, 1);
    expect((await framing(frame)).frame).toEqual({
      sensor: 'super-35',
      aspect: '2.39:1',
      filmWidthMm: 24.89,
      filmHeightMm: expect.closeTo(24.89 / 2.39, 9),
    });

    // A take records that frame: the selects lock while it runs, and its path says what it was.
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    expect(await frame.getByLabel('Aspect ratio').isDisabled()).toBe(true);
    expect(await frame.getByLabel('Sensor').isDisabled()).toBe(true);
    const drawn = await frame.evaluate(() => (window as any).__studio.renderedFrames() as number);
    await frame.waitForFunction((n) => (window as any).__studio.renderedFrames() > n + 3, drawn, { timeout: RENDER_TIMEOUT });
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    const completed = await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
    const path = completed.payload.cameraPath;
    expect(path.video.aspect).toBe(2.39);
    expect(path.sensor).toEqual({ widthMm: 24.89, heightMm: 18.66, filmGaugeMm: 24.89 });
    expect(path.samples[0].verticalFovDeg).toBeCloseTo(angle(24.89 / 2.39, path.samples[0].focalLengthMm), 2);
    expect(await frame.getByLabel('Aspect ratio').isDisabled()).toBe(false);
  });

  it('the focus reads in metres or feet, focus peaking marks the edges in focus, and guides toggle over the frame', async () => {
    const { page, frame } = await open('perform', { width: 960, height: 540 });
    const readout = frame.locator('#focus-readout');
    expect(await readout.innerText()).toMatch(/^Focus \d+(\.\d)? (m|cm)$/);

    await frame.locator('label[for="unit-ft"]').click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.framing.distanceUnit === 'ft');
    const focus = (await camera(frame)).focusDistance;
    const inches = Math.round(focus / 0.0254);
    const feet = inches >= 120 ? `${Math.round(inches / 12)} ft` : `${Math.floor(inches / 12)} ft ${inches % 12} in`;
    expect(await readout.innerText()).toBe(`Focus ${feet}`);
    // The slider's spoken value follows on the panel's next frame.
    await frame.waitForFunction((v) => document.getElementById('focus-distance')?.getAttribute('aria-valuetext') === v, feet);
    expect(await frame.locator('#focus-distance').getAttribute('aria-valuetext')).toBe(feet);
    await frame.locator('label[for="unit-m"]').click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.framing.distanceUnit === 'm');
    expect(await readout.innerText()).not.toContain('ft');

    // The focus aid (peaking): a long lens wide open, focused on what is under the centre of the
    // frame, then edges at that distance turn green and the rest of the picture does not.
    await frame.getByRole('button', { name: '85 mm prime' }).click();
    await frame.getByRole('slider', { name: 'Aperture' }).fill('0');
    const canvas = frame.locator('canvas');
    const canvasBox = (await canvas.boundingBox())!;
    await canvas.dblclick({ position: { x: canvasBox.width / 2, y: canvasBox.height * 0.6 } });
    await frame.waitForFunction(() => (window as any).__studio.camera().fNumber === 1.4, undefined, { timeout: RENDER_TIMEOUT });
    await frame.evaluate(() => (window as any).__studio.canvasStats());
    const plain = await rawPixels(await canvas.screenshot());
    await frame.getByLabel('Focus aid').check();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.framing.focusAid === true, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    await frame.evaluate(
      () =>
        new Promise((resolve) => {
          (window as any).__studio.canvasStats();
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        }),
    );
    const shot = await canvas.screenshot({ path: artifactPath('focus-aid.png') });
    const aided = await rawPixels(shot);
    expect(aided.length).toBe(plain.length);
    let greened = 0;
    for (let i = 0; i < aided.length; i += 3) {
      const dr = aided[i] - plain[i];
      const dg = aided[i + 1] - plain[i + 1];
      if (dg > 40 && dg > dr + 20) greened++;
    }
    const fraction = greened / (aided.length / 3);
    expect(fraction).toBeGreaterThan(0.001);
    expect(fraction).toBeLessThan(0.5);
    await frame.getByLabel('Focus aid').uncheck();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.framing.focusAid === false);

    // Guides: an SVG over the frame (not in the canvas), each on its own toggle.
    const guides = frame.locator('svg.frame-guides');
    expect(await guides.isHidden()).toBe(true);
    await frame.getByLabel('Rule of thirds').check();
    await guides.waitFor();
    // Guides are drawn on the next animation frame after their toggle.
    await frame.waitForFunction(() => document.querySelectorAll('.guide-thirds line').length > 0);
    expect(await frame.locator('.guide-thirds line').count()).toBe(4);
    const frameBox = (await frame.locator('.viewport-frame').boundingBox())!;
    const firstThird = (await frame.locator('.guide-thirds line').first().boundingBox())!;
    expect(firstThird.x - frameBox.x).toBeCloseTo(frameBox.width / 3, -1);

    await frame.getByLabel('Safe areas (action 93 %, title 90 %)').check();
    await frame.locator('.guide-safe .safe-title').waitFor();
    const action = (await frame.locator('.guide-safe .safe-action').boundingBox())!;
    const title = (await frame.locator('.guide-safe .safe-title').boundingBox())!;
    expect(action.width / frameBox.width).toBeCloseTo(0.93, 1);
    expect(title.width / frameBox.width).toBeCloseTo(0.9, 1);

    await frame.getByLabel('Horizon level').check();
    await frame.getByRole('slider', { name: 'Roll' }).fill('10');
    await frame.waitForFunction(
      () => document.querySelector('.guide-horizon')?.getAttribute('transform')?.includes('rotate(10.000)'),
      undefined,
      {
        timeout: RENDER_TIMEOUT,
      },
    );
    expect(await frame.locator('.horizon-label').textContent()).toBe('+10.0°');
    await frame.getByRole('button', { name: 'Level the horizon (roll 0°)' }).click();
    await frame.locator('.guide-horizon.is-level').waitFor({ timeout: RENDER_TIMEOUT });
    expect(await frame.locator('.horizon-label').textContent()).toBe('Level');
    expect((await framing(frame)).guides).toEqual(['thirds', 'safe', 'horizon']);
    await page.locator('#studio-under-test').screenshot({ path: artifactPath('framing-guides.png') });

    await frame.getByLabel('Rule of thirds').uncheck();
    await frame.getByLabel('Safe areas (action 93 %, title 90 %)').uncheck();
    await frame.getByLabel('Horizon level').uncheck();
    await guides.waitFor({ state: 'hidden' });
    expect((await framing(frame)).guides).toEqual([]);
  });

  it('shows the active preset until the camera leaves it, and saves a view that can be gone back to', async () => {
    const { page, frame } = await open('perform', { width: 960, height: 540 });
    const active = frame.locator('#active-view');
    // The studio opens at the spec's first preset, and says so.
    const firstPreset = frame.locator('#camera-presets button').first();
    await frame.waitForFunction(
      (name) => (window as any).__studio.state().perform.framing.activeView === name,
      (await firstPreset.innerText()).trim(),
    );
    const secondPreset = frame.locator('#camera-presets button').nth(1);
    await secondPreset.click();
    await frame.waitForFunction(
      (name) => (window as any).__studio.state().perform.framing.activeView === name,
      (await secondPreset.innerText()).trim(),
    );
    const presetName = (await firstPreset.innerText()).trim();
    await firstPreset.click();
    await frame.waitForFunction((name) => (window as any).__studio.state().perform.framing.activeView === name, presetName);
    expect(await active.innerText()).toBe(`Preset: ${presetName}`);

    // Refocusing is not reframing: the preset stays.
    await frame.getByRole('slider', { name: 'Focus distance' }).fill('700');
    expect((await framing(frame)).activeView).toBe(presetName);
    const start = (await camera(frame)).position;
    await holdKeyUntil(page, frame, 'KeyW', MOVED_FROM, start);
    await frame.waitForFunction(() => (window as any).__studio.state().perform.framing.activeView === null);
    expect(await active.innerText()).toBe('Preset: none (camera moved)');

    // Save this view.
    const saved = await camera(frame);
    await frame.getByRole('textbox', { name: 'Save this view as a preset' }).fill('  Over the   lake ');
    await frame.getByRole('button', { name: 'Save view' }).click();
    const go = frame.getByRole('button', { name: 'Go to view Over the lake' });
    await go.waitFor();
    expect(await active.innerText()).toBe('Preset: Over the lake');
    expect((await framing(frame)).savedViews).toEqual([{ id: expect.any(String), name: 'Over the lake' }]);

    // Move away, then go back to it.
    await holdKeyUntil(page, frame, 'KeyD', MOVED_FROM, saved.position);
    expect((await framing(frame)).activeView).toBeNull();
    await go.click();
    await frame.waitForFunction((name) => (window as any).__studio.state().perform.framing.activeView === name, 'Over the lake');
    // The view is named at once; the camera on screen takes the pose at the next frame drawn
    // (`__studio.camera()` is the drawn camera), which a slow machine may not have drawn yet.
    await frame.waitForFunction(
      (p) => {
        const c = (window as any).__studio.camera().position as number[];
        return Math.hypot(c[0] - p[0], c[1] - p[1], c[2] - p[2]) < 1e-4;
      },
      saved.position,
      { timeout: RENDER_TIMEOUT },
    );
    const back = await camera(frame);
    back.position.forEach((v, i) => expect(v).toBeCloseTo(saved.position[i], 4));
    expect(back.focalLengthMm).toBeCloseTo(saved.focalLengthMm, 6);

    // An empty name is refused, and a view can be deleted.
    await frame.getByRole('textbox', { name: 'Save this view as a preset' }).fill('   ');
    await frame.getByRole('button', { name: 'Save view' }).click();
    expect(await frame.getByRole('textbox', { name: 'Save this view as a preset' }).getAttribute('aria-invalid')).toBe('true');
    await frame.getByRole('button', { name: 'Delete view Over the lake' }).click();
    await go.waitFor({ state: 'detached' });
    expect((await framing(frame)).savedViews).toEqual([]);
  });

  it.each<[StudioMode, { width: number; height: number }]>([
    ['perform', { width: 640, height: 360 }],
    ['edit_and_perform', { width: 960, height: 600 }],
  ])('at the minimum size (%s, %o) record and the focal length are inside the viewport without scrolling', async (mode, size) => {
    const { page, frame } = await open(mode, size);
    const iframe = (await page.locator('#studio-under-test').boundingBox())!;
    const area = (await frame.locator('.viewport-area').boundingBox())!;
    for (const locator of [frame.getByRole('button', { name: 'Start recording' }), frame.getByRole('textbox', { name: 'Focal length' })]) {
      expect(await locator.isVisible()).toBe(true);
      const box = (await locator.boundingBox())!;
      // Inside the iframe's box and over the viewport, without scrolling anything.
      for (const outer of [iframe, area]) {
        expect(box.x).toBeGreaterThanOrEqual(outer.x - 0.5);
        expect(box.y).toBeGreaterThanOrEqual(outer.y - 0.5);
        expect(box.x + box.width).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
        expect(box.y + box.height).toBeLessThanOrEqual(outer.y + outer.height + 0.5);
      }
      // Nothing covers it: the element at its centre is itself (or inside it).
      const hit = await locator.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return top !== null && (top === el || el.contains(top));
      });
      expect(hit).toBe(true);
    }
    await page.locator('#studio-under-test').screenshot({ path: artifactPath(`compact-${mode}-${size.width}x${size.height}.png`) });
    expect(await frame.evaluate(() => ({ x: window.scrollX, y: window.scrollY }))).toEqual({ x: 0, y: 0 });
    expect(await frame.evaluate(() => document.getElementById('side-panel')!.scrollTop)).toBe(0);

    // And they work from there.
    await frame.getByRole('textbox', { name: 'Focal length' }).fill('50');
    await frame.getByRole('textbox', { name: 'Focal length' }).press('Enter');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 50) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
  });

  it('shows the frame rate, lowers the pixel ratio while slow frames come, restores it at rest, and never during a take', async () => {
    const { page, frame } = await open('perform', { width: 960, height: 540 }, { quality: { targetFps: 1000 } });
    const full = await quality(frame);
    expect(full.pixelRatio).toBe(full.maxPixelRatio);
    const fullCanvas = await frame.evaluate(() => (window as any).__studio.canvasStats());

    const start = (await camera(frame)).position;
    // Read while the key is still down: at rest the resolution comes back within 300 ms.
    await holdKeyUntil(
      page,
      frame,
      'KeyW',
      () => {
        const q = (window as any).__studio.quality();
        const indicator = document.getElementById('fps-indicator')!;
        if (q.pixelRatio >= q.maxPixelRatio || indicator.dataset.reduced !== 'true') return false;
        (window as any).__lowered = { ...q, text: indicator.textContent };
        return true;
      },
      null,
    );
    const lowered = await frame.evaluate(() => (window as any).__lowered);
    expect(lowered.pixelRatio).toBeLessThan(full.maxPixelRatio);
    expect(lowered.pixelRatio).toBeGreaterThanOrEqual(0.5);
    expect(lowered.fps).toBeGreaterThan(0);
    expect(lowered.text).toMatch(/^\d+ fps$/);
    expect(Math.hypot(...(await camera(frame)).position.map((v, i) => v - start[i]))).toBeGreaterThan(0);

    // At rest: full resolution again, on the canvas too.
    await frame.waitForFunction(
      () => {
        const q = (window as any).__studio.quality();
        return q.pixelRatio === q.maxPixelRatio;
      },
      undefined,
      { timeout: RENDER_TIMEOUT },
    );
    expect((await frame.evaluate(() => (window as any).__studio.canvasStats())).width).toBe(fullCanvas.width);

    // During a take the resolution is pinned, however slow the frames.
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    expect((await quality(frame)).pinned).toBe(true);
    const takeStart = (await camera(frame)).position;
    await holdKeyUntil(page, frame, 'KeyW', MOVED_FROM, takeStart);
    const during = await quality(frame);
    expect(during.pixelRatio).toBe(during.maxPixelRatio);
    await frame.getByRole('button', { name: 'Stop recording' }).click();
    await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
    expect((await quality(frame)).pinned).toBe(false);
  });
});
