import { QueueService } from '@app/core';
import { StudioBudgets } from '@apps/studio/limits/studio-budgets';
import { existsSync, statSync } from 'node:fs';
import { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { TestOrganization } from '../factories/organization.factory';
import { uploadImage } from '../factories/scene.factory';
import { RunningHttpApp } from '../support/apps';
import { artifactPath } from '../support/browser';
import { setUpEmbedStack } from '../support/embed-stack';
import { PartnerApp } from '../support/partner-app';
import {
  EmbeddedStudio,
  embedStudio,
  imageStats,
  installGamepadStub,
  resizeStudio,
  StudioMode,
  studioEvents,
  waitForEvent,
  waitForVersion,
} from '../support/studio-frame';
import { SCENES_QUEUE } from '@app/operations';

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

interface DebugCamera {
  position: Vec3;
  quaternion: Quat;
  fov: number;
  horizontalFov: number;
  aspect: number;
  focalLengthMm: number;
  projectionMatrix: number[];
}

/** docs/embed.md: perform needs at least 640×360, the edit modes 960×600. */
const FRAME_SIZE: Record<StudioMode, { width: number; height: number }> = {
  edit: { width: 960, height: 600 },
  perform: { width: 960, height: 540 },
  edit_and_perform: { width: 960, height: 600 },
};

/** What the reference partner app (examples/partner-app/server.js) puts in its sessions' theme. */
const PARTNER_HELP_TEXT = 'This is the reference partner page. Edit turns and recordings stay in this session.';

/** Software WebGL (SwiftShader) draws slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 30_000;

const camera = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera() as DebugCamera);
const studioState = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state());
const distance = (a: Vec3, b: Vec3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The direction a camera with quaternion `q` looks along: its local −Z in world space. */
function viewDirection([x, y, z, w]: Quat): Vec3 {
  return [-(2 * (x * z + w * y)), -(2 * (y * z - w * x)), -(1 - 2 * (x * x + y * y))];
}

/** three.js with filmGauge 36: the film is 36 mm wide, cropped to the frame's aspect. */
function verticalFovDeg(focalMm: number, aspect: number): number {
  return (2 * Math.atan(36 / aspect / 2 / focalMm) * 180) / Math.PI;
}

/**
 * The embedded studio's three modes in Debian's Chromium (software WebGL): what each mode shows
 * and hides, what it draws, and that its controls — lens, gamepad, recording, edits, theme, help,
 * keyboard — do what docs/embed.md promises the partner page.
 */
describe('the studio in each mode, in a real browser', () => {
  let api: RunningHttpApp;
  let studio: RunningHttpApp;
  let org: TestOrganization;
  let partner: PartnerApp;
  let browser: Browser;
  /** Version 1 only: no test edits it. */
  let sceneId: string;
  const contexts: BrowserContext[] = [];

  const stack = setUpEmbedStack();
  beforeAll(async () => {
    ({ api, studio, org, partner, browser } = stack);
    sceneId = await readyScene(api, org, { prompt: 'A calm lake among pines at sunset, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function newPage(options: { gamepad?: boolean } = {}): Promise<Page> {
    // Reduced motion: the stylesheet then drops its transitions, so computed colours are final.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    if (options.gamepad) await installGamepadStub(context);
    return context.newPage();
  }

  async function sessionUrl(mode: StudioMode, options: { scene?: string; theme?: Record<string, unknown> } = {}): Promise<string> {
    const res = await createEmbedSession(api, org, {
      sceneId: options.scene ?? sceneId,
      origin: partner.origin,
      mode,
      ...(options.theme ? { theme: options.theme } : {}),
    });
    expect(res.status).toBe(201);
    return res.body.url as string;
  }

  /** A session created through the API, shown in an iframe that the test adds to the reference partner page. */
  async function open(
    mode: StudioMode,
    options: { scene?: string; theme?: Record<string, unknown>; size?: { width: number; height: number }; gamepad?: boolean } = {},
  ): Promise<EmbeddedStudio & { page: Page }> {
    const page = await newPage(options);
    await page.goto(partner.origin);
    const embedded = await embedStudio(page, await sessionUrl(mode, options), options.size ?? FRAME_SIZE[mode]);
    return { ...embedded, page };
  }

  /** The reference page's own flow, with its own theme: generate, choose the mode, open. */
  async function openThroughPartnerPage(mode: StudioMode): Promise<{ page: Page; frame: Frame }> {
    const page = await newPage();
    await page.goto(partner.origin);
    await page.getByLabel('Prompt').fill('A misty pine forest by a lake at dawn');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByRole('status').filter({ hasText: 'is ready' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Mode').selectOption(mode);
    await page.getByRole('button', { name: 'Open studio' }).click();
    await waitForEvent(page, 'ready', 20_000, 'partnerEvents');
    const frame = await (await page.locator('#stage iframe').elementHandle())!.contentFrame();
    return { page, frame: frame! };
  }

  describe.each<StudioMode>(['edit', 'perform', 'edit_and_perform'])('%s mode', (mode) => {
    it('draws the scene: a non-blank canvas, and a screenshot kept as a CI artifact', async () => {
      const { page, frame } = await open(mode);
      await waitForVersion(frame, 1, RENDER_TIMEOUT);
      expect(await studioState(frame)).toMatchObject({ phase: 'active', mode, webgl: true, loadedVersion: 1 });

      const stats = await frame.evaluate(() => (window as any).__studio.canvasStats());
      expect(stats).toMatchObject({ nonBlank: true });
      expect(stats.lumaStdDev).toBeGreaterThan(2);
      expect(stats.distinctColors).toBeGreaterThan(8);
      // The frame is always 16:9, letterboxed in its area.
      expect(stats.width / stats.height).toBeCloseTo(16 / 9, 1);

      const path = artifactPath(`${mode}.png`);
      const whole = await page.locator('#studio-under-test').screenshot({ path });
      expect(existsSync(path) && statSync(path).size).toBeGreaterThan(10_000);
      expect((await imageStats(whole)).lumaStdDev).toBeGreaterThan(5);

      // The canvas element itself, as composited on screen: varied pixels, not one flat colour.
      const canvasShot = await imageStats(await frame.locator('canvas').screenshot());
      expect(canvasShot.width).toBeGreaterThan(300);
      expect(canvasShot.lumaStdDev).toBeGreaterThan(5);
      expect(canvasShot.distinctColors).toBeGreaterThan(50);
    });
  });

  it('changing the focal length changes the projection and the field-of-view read-out', async () => {
    const { frame } = await open('perform');
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    const slider = frame.getByRole('slider', { name: 'Focal length' });
    const readout = frame.locator('#fov-readout');
    const before = await camera(frame);
    const readoutBefore = await readout.innerText();
    // The preset's lens is not 85 mm, so the change is a change.
    expect(Math.abs(before.focalLengthMm - 85)).toBeGreaterThan(1);

    await slider.fill('85');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 85) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    const at85 = await camera(frame);
    expect(at85.fov).toBeCloseTo(verticalFovDeg(85, at85.aspect), 6);
    expect(at85.horizontalFov).toBeCloseTo((2 * Math.atan(18 / 85) * 180) / Math.PI, 4);
    // Column-major: [5] is 1/tan(vfov/2), [0] the same over the aspect.
    expect(at85.projectionMatrix[5]).toBeCloseTo(1 / Math.tan((at85.fov * Math.PI) / 360), 6);
    expect(at85.projectionMatrix[0]).toBeCloseTo(at85.projectionMatrix[5] / at85.aspect, 6);
    expect(at85.projectionMatrix[5]).not.toBeCloseTo(before.projectionMatrix[5], 3);
    expect(at85.position).toEqual(before.position);
    await expect(readout.innerText()).resolves.not.toBe(readoutBefore);
    // The read-out is the lens maths of the 16:9 frame: 23.9° × 13.5° at 85 mm.
    expect(await readout.innerText()).toBe(
      `Field of view ${at85.horizontalFov.toFixed(1)}° horizontal × ${verticalFovDeg(85, 16 / 9).toFixed(1)}° vertical`,
    );

    // The keyboard drives the same slider: End → 200 mm (narrowest), Home → 12 mm (widest).
    await slider.focus();
    await slider.press('End');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 200) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    const tele = await camera(frame);
    await slider.press('Home');
    await frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 12) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    const wide = await camera(frame);
    expect(wide.fov).toBeGreaterThan(at85.fov);
    expect(at85.fov).toBeGreaterThan(tele.fov);
    expect(await slider.getAttribute('aria-valuetext')).toBe('12 millimetres');
    expect(await readout.innerText()).toContain(`${wide.horizontalFov.toFixed(1)}° horizontal`);
  });

  it('a gamepad moves the camera, and its A button starts and stops a recording', async () => {
    const { page, frame } = await open('perform', { gamepad: true });
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    await frame.locator('#gamepad-status[data-connected="true"]').waitFor({ timeout: RENDER_TIMEOUT });
    expect(await frame.locator('#gamepad-status').innerText()).toContain('Gamepad connected: Test pad');

    // Left stick forward (standard mapping: axis 1 negative) until the camera has travelled.
    const before = await camera(frame);
    await frame.evaluate(() => ((window as any).__testGamepad.axes[1] = -1));
    await frame.waitForFunction(
      (start) => {
        const p = (window as any).__studio.camera().position as number[];
        return Math.hypot(p[0] - start[0], p[1] - start[1], p[2] - start[2]) > 1;
      },
      before.position,
      { timeout: RENDER_TIMEOUT },
    );
    await frame.evaluate(() => ((window as any).__testGamepad.axes[1] = 0));
    const after = await camera(frame);
    // It moved forward along the ground (orbit navigation), without turning.
    const moved: Vec3 = [after.position[0] - before.position[0], 0, after.position[2] - before.position[2]];
    const look = viewDirection(before.quaternion);
    const lookFlat = Math.hypot(look[0], look[2]);
    const alongView = (moved[0] * look[0] + moved[2] * look[2]) / lookFlat / Math.hypot(moved[0], moved[2]);
    expect(alongView).toBeGreaterThan(0.99);
    after.quaternion.forEach((q, i) => expect(q).toBeCloseTo(before.quaternion[i], 6));

    // A: pressed, then released — recording starts on the press.
    const setA = (pressed: boolean) =>
      frame.evaluate((p) => {
        (window as any).__testGamepad.buttons[0] = { pressed: p, touched: p, value: p ? 1 : 0 };
        return (window as any).__studio.renderedFrames() as number;
      }, pressed);
    await setA(true);
    await frame.waitForFunction(() => (window as any).__studio.state().perform.recording === true, undefined, { timeout: RENDER_TIMEOUT });
    const started = await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
    expect(started.payload).toEqual({ durationMs: 0, sizeBytes: 0, mimeType: expect.stringMatching(/^video\/webm/) });
    expect(await frame.locator('#record-toggle').getAttribute('aria-pressed')).toBe('true');
    const framesAtRelease = await setA(false);
    // While recording every animation frame is drawn, after the pad is polled: a few more drawn
    // frames mean the release was seen, so the next press is a new press.
    await frame.waitForFunction((n) => (window as any).__studio.renderedFrames() > n + 3, framesAtRelease, { timeout: RENDER_TIMEOUT });
    expect((await studioState(frame)).perform.recording).toBe(true);

    await setA(true);
    await frame.waitForFunction(() => (window as any).__studio.state().perform.recording === false, undefined, { timeout: RENDER_TIMEOUT });
    await setA(false);
    const completed = await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
    expect(completed.payload.sizeBytes).toBeGreaterThan(0);
    expect((await studioEvents(page)).filter((e) => e.type === 'recording.started')).toHaveLength(1);
  });

  it('a take gives the parent a non-empty WebM and its camera path, and the studio lists both downloads', async () => {
    const { page, frame } = await open('perform');
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    await frame.getByRole('button', { name: 'Start recording' }).click();
    await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);

    // Fly forward with W while the take runs, so the path has somewhere to go.
    const start = await camera(frame);
    await page.keyboard.down('KeyW');
    await frame.waitForFunction(
      (s) => {
        const p = (window as any).__studio.camera().position as number[];
        return Math.hypot(p[0] - s[0], p[1] - s[1], p[2] - s[2]) > 0.5;
      },
      start.position,
      { timeout: RENDER_TIMEOUT },
    );
    await page.keyboard.up('KeyW');
    await frame.getByRole('button', { name: 'Stop recording' }).click();

    const completed = await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
    const { durationMs, mimeType, sizeBytes, video } = completed.payload;
    expect(durationMs).toBeGreaterThan(0);
    expect(mimeType).toMatch(/^video\/webm/);
    expect(sizeBytes).toBeGreaterThan(0);
    expect(video).toEqual({ blob: true, size: sizeBytes, type: mimeType });

    // The video is a real WebM: an EBML header whose DocType is "webm".
    const head = await page.evaluate(async () => {
      const event = ((window as any).studioEvents as any[]).find((e) => e.type === 'recording.completed');
      const bytes = new Uint8Array(await (event.payload.video as Blob).arrayBuffer());
      return { length: bytes.length, first64: Array.from(bytes.slice(0, 64)) };
    });
    expect(head.length).toBe(sizeBytes);
    expect(head.first64.slice(0, 4)).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    expect(Buffer.from(head.first64).toString('latin1')).toContain('webm');

    const path = completed.payload.cameraPath;
    expect(path).toMatchObject({
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 1,
      durationMs,
      coordinateSystem: 'gltf',
      video: { mimeType, aspect: expect.closeTo(16 / 9, 4) },
      markers: [],
    });
    const samples = path.samples as Array<{ t: number; position: Vec3; quaternion: Quat; focalLengthMm: number; verticalFovDeg: number }>;
    expect(samples.length).toBeGreaterThan(2);
    for (const [i, s] of samples.entries()) {
      expect(s.position).toHaveLength(3);
      expect(s.position.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...s.quaternion)).toBeCloseTo(1, 4);
      expect(s.focalLengthMm).toBeGreaterThanOrEqual(12);
      expect(s.focalLengthMm).toBeLessThanOrEqual(200);
      expect(s.verticalFovDeg).toBeCloseTo(verticalFovDeg(s.focalLengthMm, 16 / 9), 2);
      expect(s.t).toBeLessThanOrEqual(durationMs + 1);
      if (i > 0) expect(s.t).toBeGreaterThanOrEqual(samples[i - 1].t);
    }
    expect(distance(samples[0].position, samples[samples.length - 1].position)).toBeGreaterThan(0.3);

    // Inside the framed studio: one take, and no download link (the sandbox has no
    // allow-downloads, so a link would do nothing); the hint says where the take went.
    const take = frame.locator('#recordings li[data-take="1"]');
    await take.waitFor();
    expect(await frame.locator('#recordings li').count()).toBe(1);
    expect(await take.getByRole('link').count()).toBe(0);
    expect(await frame.getByText('Each take is also handed to the page embedding the studio').isVisible()).toBe(true);
    expect((await studioState(frame)).perform.lastTake).toEqual({
      durationMs,
      mimeType,
      sizeBytes,
      pathSamples: samples.length,
      markers: 0,
    });
  });

  it('an edit turn makes version 2, the viewport shows it, and the history outlives the page', async () => {
    const editScene = await readyScene(api, org, { prompt: 'A bright sunny meadow with pines at noon' });
    const { page, frame } = await open('edit', { scene: editScene });
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    const lumaBefore = (await frame.evaluate(() => (window as any).__studio.canvasStats())).meanLuma as number;

    await frame.locator('#edit-submit[aria-disabled="false"]').waitFor({ timeout: RENDER_TIMEOUT });
    await frame.getByRole('textbox', { name: 'Edit instruction' }).fill('make it night');
    await frame.getByRole('button', { name: 'Apply edit' }).click();

    const started = await waitForEvent(page, 'edit.started', 10_000);
    expect(started.payload).toEqual({ operationId: expect.stringMatching(/^op_/), instruction: 'make it night' });
    const done = frame.locator('#edit-history li[data-status="succeeded"]');
    await done.waitFor({ timeout: 20_000 });
    expect(await done.getAttribute('data-operation-id')).toBe(started.payload.operationId);
    expect(await done.innerText()).toMatch(/make it night[\s\S]*version 2/);
    const succeeded = await waitForEvent(page, 'edit.succeeded', 10_000);
    expect(succeeded.payload).toEqual({ operationId: started.payload.operationId, instruction: 'make it night', version: 2 });

    await waitForVersion(frame, 2, RENDER_TIMEOUT);
    const after = await frame.evaluate(() => (window as any).__studio.canvasStats());
    expect(after.nonBlank).toBe(true);
    // Same camera, night instead of noon: the new version is what is on screen.
    expect(after.meanLuma).toBeLessThan(lumaBefore * 0.8);
    const scene = await api.http().get(`/v1/scenes/${editScene}`).set(org.auth);
    expect(scene.status).toBe(200);
    expect(scene.body.version).toBe(2);

    // A new page, a new session of the same scene: the history is the server's, not the page's.
    const again = await open('edit_and_perform', { scene: editScene });
    await waitForVersion(again.frame, 2, RENDER_TIMEOUT);
    const history = again.frame.locator('#edit-history li');
    await history.first().waitFor();
    expect(await history.count()).toBe(1);
    expect(await history.first().getAttribute('data-status')).toBe('succeeded');
    expect(await history.first().innerText()).toMatch(/make it night[\s\S]*version 2/);
    expect((await studioState(again.frame)).edits).toEqual([{ operationId: started.payload.operationId, status: 'succeeded', version: 2 }]);
    // An old turn is history, not news: the new parent is not told it succeeded.
    expect((await studioEvents(again.page)).map((e) => e.type)).not.toContain('edit.succeeded');
  });

  it('a refused edit says why in the panel: another edit running (409), the session’s edits spent (429, with when)', async () => {
    const editScene = await readyScene(api, org, { prompt: 'A bright sunny meadow with pines at noon' });
    const url = await sessionUrl('edit', { scene: editScene });
    const page = await newPage();
    await page.goto(partner.origin);
    const { frame } = await embedStudio(page, url, FRAME_SIZE.edit);
    await frame.locator('#edit-submit[aria-disabled="false"]').waitFor({ timeout: RENDER_TIMEOUT });
    const instruction = frame.getByRole('textbox', { name: 'Edit instruction' });
    const apply = frame.getByRole('button', { name: 'Apply edit' });
    const error = frame.locator('#edit-error');

    // The first edit waits in the queue, so it is still running when the second is asked for.
    const queue = stack.worker.get(QueueService).queue(SCENES_QUEUE);
    await queue.pause();
    try {
      await instruction.fill('make it night');
      await apply.click();
      await waitForEvent(page, 'edit.started', 10_000);
      await instruction.fill('add fog');
      await apply.click();
      await error.filter({ hasText: 'Another edit of this scene is still running. Wait until it finishes, then try again.' }).waitFor();
      expect(await error.getAttribute('role')).toBe('alert');
      expect(await instruction.inputValue()).toBe('add fog');
      const refused = await waitForEvent(page, 'error', 10_000);
      expect(refused.payload).toEqual({
        code: 'edit_in_progress',
        message: 'Another edit of this scene is still running. Wait until it finishes, then try again.',
      });
    } finally {
      await queue.resume();
    }
    await waitForVersion(frame, 2, RENDER_TIMEOUT);

    // The session's 30 edits an hour, spent (the first one above and 29 more, as the studio would).
    const budgets = studio.app.get(StudioBudgets);
    for (let i = 0; i < 29; i++) await budgets.spendEdit(parseEmbedUrl(url).sessionId);
    await apply.click();
    await error
      .filter({ hasText: /^This studio has reached its limit of edits for now\. You can edit again in (59|60) minutes\.$/ })
      .waitFor();
    expect((await studioEvents(page)).filter((e) => e.type === 'error').map((e) => e.payload.code)).toEqual([
      'edit_in_progress',
      'rate_limited',
    ]);
    // Nothing was started for the refused turns.
    expect(await frame.locator('#edit-history li').count()).toBe(1);
  });

  describe('what each mode offers', () => {
    it('perform has no editing', async () => {
      const { frame } = await open('perform');
      await waitForVersion(frame, 1, RENDER_TIMEOUT);
      await frame.locator('#panel-perform').waitFor();
      expect(await frame.locator('#record-toggle').isVisible()).toBe(true);
      expect(await frame.locator('#focal-length').isVisible()).toBe(true);
      expect(await frame.getByRole('textbox', { name: 'Edit instruction' }).count()).toBe(0);
      expect(await frame.locator('#panel-edit, #edit-instruction, #edit-submit, #edit-history').count()).toBe(0);
      expect(await frame.getByRole('tablist').count()).toBe(0);
      expect(await frame.getByRole('application', { name: 'Camera viewport' }).count()).toBe(1);
      expect((await studioState(frame)).capabilities).toEqual({ edit: false, perform: true });
    });

    it('edit has no recording, lens or camera controls', async () => {
      const { page, frame } = await open('edit');
      await waitForVersion(frame, 1, RENDER_TIMEOUT);
      await frame.locator('#panel-edit').waitFor();
      expect(await frame.getByRole('textbox', { name: 'Edit instruction' }).isVisible()).toBe(true);
      expect(await frame.locator('#panel-perform, #record-toggle, #focal-length, #recordings').count()).toBe(0);
      expect(await frame.getByRole('button', { name: /recording/i }).count()).toBe(0);
      expect(await frame.getByRole('tablist').count()).toBe(0);
      // The viewport orbits the scene for inspection; it is not a camera to fly or record.
      expect(await frame.getByRole('application', { name: 'Orbit view of the scene' }).count()).toBe(1);
      expect(await frame.getByRole('application', { name: 'Camera viewport' }).count()).toBe(0);
      expect((await studioState(frame)).perform).toBeNull();
      // The recording key does nothing either.
      await frame.locator('.brand').click();
      await page.keyboard.press('KeyR');
      await frame.getByRole('button', { name: 'Help' }).click();
      const help = frame.getByRole('dialog', { name: 'Help' });
      await help.waitFor();
      expect(await help.innerText()).not.toMatch(/Gamepad|Start or stop recording/);
      expect((await studioEvents(page)).map((e) => e.type)).not.toContain('recording.started');
    });

    it('edit_and_perform offers both as tabs, switched without reloading the page', async () => {
      const { page, frame } = await open('edit_and_perform');
      await waitForVersion(frame, 1, RENDER_TIMEOUT);
      const tablist = frame.getByRole('tablist', { name: 'Workflow' });
      expect(await tablist.getByRole('tab').allInnerTexts()).toEqual(['Edit', 'Perform']);
      const editTab = frame.locator('#tab-edit');
      const performTab = frame.locator('#tab-perform');
      expect(await editTab.getAttribute('aria-selected')).toBe('true');
      expect(await frame.locator('#panel-edit').isVisible()).toBe(true);
      expect(await frame.locator('#panel-perform').isHidden()).toBe(true);
      const loadBefore = await frame.evaluate(() => ({
        timeOrigin: performance.timeOrigin,
        navigations: performance.getEntriesByType('navigation').length,
      }));
      const cameraBefore = await camera(frame);

      await performTab.click();
      expect(await performTab.getAttribute('aria-selected')).toBe('true');
      expect(await editTab.getAttribute('aria-selected')).toBe('false');
      expect(await frame.locator('#panel-perform').isVisible()).toBe(true);
      expect(await frame.locator('#panel-edit').isHidden()).toBe(true);
      expect(await frame.getByRole('button', { name: 'Start recording' }).isVisible()).toBe(true);
      expect(await frame.getByRole('textbox', { name: 'Edit instruction' }).isVisible()).toBe(false);
      expect((await studioState(frame)).activeTab).toBe('perform');

      // The tabs pattern: arrow keys move between tabs.
      await performTab.press('ArrowLeft');
      expect(await editTab.getAttribute('aria-selected')).toBe('true');
      expect(await frame.evaluate(() => document.activeElement?.id)).toBe('tab-edit');
      expect(await frame.getByRole('textbox', { name: 'Edit instruction' }).isVisible()).toBe(true);

      expect(
        await frame.evaluate(() => ({
          timeOrigin: performance.timeOrigin,
          navigations: performance.getEntriesByType('navigation').length,
        })),
      ).toEqual(loadBefore);
      // One studio load: one `ready`, the same scene and camera.
      expect((await studioEvents(page)).filter((e) => e.type === 'ready')).toHaveLength(1);
      expect((await studioState(frame)).loadedVersion).toBe(1);
      expect((await camera(frame)).position).toEqual(cameraBefore.position);
    });
  });

  it("a perform session's page gets 403 from the edit endpoint and from the source image", async () => {
    const sourceScene = await readyScene(api, org, { prompt: 'From my photo of a lake', sourceAssetId: await uploadImage(api, org) });
    const { frame, secret } = await open('perform', { scene: sourceScene });
    const answers = await frame.evaluate(async (bearer) => {
      const headers = { authorization: `Bearer ${bearer}` };
      const edit = await fetch('/studio-api/v1/edits', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ instruction: 'make it night' }),
      });
      const image = await fetch('/studio-api/v1/source-image', { headers });
      const history = await fetch('/studio-api/v1/edits', { headers });
      return { edit: { status: edit.status, body: await edit.json() }, image: image.status, history: history.status };
    }, secret);
    expect(answers.edit.status).toBe(403);
    expect(answers.edit.body.code).toBe('forbidden');
    expect(answers.image).toBe(403);
    expect(answers.history).toBe(403);
    // The scene has a source image and an edit session gets it: the 403s are the mode's doing.
    const editSecret = parseEmbedUrl(await sessionUrl('edit', { scene: sourceScene })).secret;
    const image = await studio.http().get('/studio-api/v1/source-image').set('Authorization', `Bearer ${editSecret}`);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect((await api.http().get(`/v1/scenes/${sourceScene}`).set(org.auth)).body.version).toBe(1);
  });

  describe('theme and help', () => {
    it("the reference page's theme: partner name, accent colour, dark scheme", async () => {
      const { frame } = await openThroughPartnerPage('edit_and_perform');
      await frame.locator('#partner-name').waitFor();
      expect(await frame.locator('#partner-name').innerText()).toBe('Example Partner');
      const look = await frame.evaluate(() => {
        const root = document.getElementById('studio-root')!;
        return {
          scheme: root.dataset.scheme,
          documentScheme: document.documentElement.dataset.scheme,
          accent: getComputedStyle(root).getPropertyValue('--accent').trim(),
          selectedTab: getComputedStyle(document.querySelector('[role="tab"][aria-selected="true"]')!).backgroundColor,
          background: getComputedStyle(document.body).backgroundColor,
        };
      });
      expect(look).toEqual({
        scheme: 'dark',
        documentScheme: 'dark',
        accent: '#ff7a45',
        selectedTab: 'rgb(255, 122, 69)',
        background: 'rgb(11, 13, 18)',
      });
    });

    it('a light theme given through the API', async () => {
      const { frame } = await open('edit', { theme: { partnerName: 'Lumen Optics', accentColor: '#2A6F97', colorScheme: 'light' } });
      await frame.locator('#studio-root[data-scheme="light"]').waitFor();
      expect(await frame.locator('#partner-name').innerText()).toBe('Lumen Optics');
      const look = await frame.evaluate(() => ({
        accent: getComputedStyle(document.getElementById('studio-root')!).getPropertyValue('--accent').trim(),
        button: getComputedStyle(document.getElementById('edit-submit')!).backgroundColor,
        background: getComputedStyle(document.body).backgroundColor,
      }));
      expect(look).toEqual({ accent: '#2a6f97', button: 'rgb(42, 111, 151)', background: 'rgb(238, 240, 245)' });
    });

    it("the help panel holds the partner's help text and every binding, and closes with Escape", async () => {
      const { frame } = await openThroughPartnerPage('edit_and_perform');
      const toggle = frame.locator('#help-toggle');
      const help = frame.getByRole('dialog', { name: 'Help' });
      expect(await help.isHidden()).toBe(true);
      await toggle.click();
      await help.waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const text = await help.innerText();
      expect(text).toContain(PARTNER_HELP_TEXT);
      for (const heading of ['Editing', 'Keyboard', 'Mouse and touch', 'Gamepad', '3D mouse']) {
        expect(await help.getByRole('heading', { name: heading, exact: true }).count()).toBe(1);
      }
      expect(await help.locator('kbd').allInnerTexts()).toEqual(expect.arrayContaining(['W A S D', 'R', 'Left stick', 'A', 'Enter']));
      expect(text).toContain('Start or stop recording');
      expect(await frame.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close help');

      await frame.locator('body').press('Escape');
      expect(await help.isHidden()).toBe(true);
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await frame.evaluate(() => document.activeElement?.id)).toBe('help-toggle');
    });
  });

  describe('keyboard', () => {
    /** Presses Tab from the start of the studio until `id` has focus; returns the ids passed. */
    async function tabTo(page: Page, frame: Frame, id: string, limit = 60): Promise<string[]> {
      // A click on plain text gives the studio's document the focus, with nothing focused in it.
      await frame.locator('.brand-product').click();
      const seen: string[] = [];
      for (let i = 0; i < limit; i++) {
        await page.keyboard.press('Tab');
        const focused = await frame.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || '');
        seen.push(focused);
        if (focused === id) return seen;
      }
      throw new Error(`Tab never reached #${id}; focus went through ${seen.join(', ')}`);
    }

    it('Tab reaches the focal length slider in perform mode, and the arrow keys change the lens', async () => {
      const { page, frame } = await open('perform');
      await waitForVersion(frame, 1, RENDER_TIMEOUT);
      const passed = await tabTo(page, frame, 'focal-length');
      // On the way: the header's buttons and the camera viewport itself (it takes keys too).
      expect(passed).toEqual(expect.arrayContaining(['help-toggle', 'CANVAS']));
      const before = (await camera(frame)).focalLengthMm;
      await page.keyboard.press('ArrowRight');
      await frame.waitForFunction((b) => Math.abs((window as any).__studio.camera().focalLengthMm - (Math.round(b) + 1)) < 1e-6, before, {
        timeout: RENDER_TIMEOUT,
      });
    });

    it('Tab reaches the edit instruction in edit mode, and typing goes into it', async () => {
      const { page, frame } = await open('edit');
      await tabTo(page, frame, 'edit-instruction');
      await page.keyboard.type('add fog');
      expect(await frame.locator('#edit-instruction').inputValue()).toBe('add fog');
    });
  });

  /** Resizes the studio's container and waits until the studio's own viewport has that size. */
  async function resizeTo(studio: EmbeddedStudio & { page: Page }, size: { width: number; height: number }): Promise<void> {
    await resizeStudio(studio.page, size);
    // Polled on a timer, not on animation frames: the point is to see whether the frame's
    // viewport has followed, whatever the frame's rendering is doing.
    await studio.frame.waitForFunction((s) => innerWidth === s.width && innerHeight === s.height, size, {
      polling: 100,
      timeout: RENDER_TIMEOUT,
    });
  }

  it("an edit frame smaller than the mode's minimum shows the size notice, gone once the frame grows", async () => {
    const edit = await open('edit', { size: { width: 800, height: 500 } });
    const notice = edit.frame.locator('.size-notice[role="alert"]');
    await notice.waitFor();
    expect(await notice.innerText()).toContain('at least 960×600 pixels; it has 800×500');
    expect((await studioState(edit.frame)).tooSmall).toBe(true);
    await resizeTo(edit, FRAME_SIZE.edit);
    await notice.waitFor({ state: 'hidden' });
    expect((await studioState(edit.frame)).tooSmall).toBe(false);
  });

  it('a perform frame is fine at 800×500 (its minimum is 640×360) and shows the notice once shrunk below it', async () => {
    const perform = await open('perform', { size: { width: 800, height: 500 } });
    const notice = perform.frame.locator('.size-notice');
    expect(await notice.isHidden()).toBe(true);
    expect((await studioState(perform.frame)).tooSmall).toBe(false);
    await resizeTo(perform, { width: 600, height: 340 });
    await notice.waitFor();
    expect(await notice.getAttribute('role')).toBe('alert');
    expect(await notice.innerText()).toContain('at least 640×360 pixels; it has 600×340');
  });
});
