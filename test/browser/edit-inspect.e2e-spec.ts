import { createHash } from 'node:crypto';
import { BrowserContext, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { artifactPath } from '../support/browser';
import { setUpEmbedStack } from '../support/embed-stack';
import { pollUntil } from '../support/poll';
import { EmbeddedStudio, embedStudio, StudioMode, studioEvents, waitForVersion } from '../support/studio-frame';

type Vec3 = [number, number, number];

/** docs/embed.md: the edit modes need 960×600. */
const EDIT_FRAME = { width: 960, height: 600 };
/** Software WebGL (SwiftShader) draws slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 30_000;

interface InspectState {
  viewing: number | null;
  shown: number | null;
  loading: number | null;
  compare: { a: number; b: number; split: number; shownB: number | null; cameraPosition: Vec3 } | null;
}

const inspect = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state().inspect as InspectState);
const cameraPosition = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera().position as Vec3);
const navigation = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera().navigation as string);
const meanLuma = (frame: Frame) => frame.evaluate(() => (window as any).__studio.canvasStats().meanLuma as number);
const moved = (a: Vec3, b: Vec3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) > 1e-3;

/** Mean luma of a vertical band of a screenshot, from `from` to `to` (fractions of its width). */
async function bandLuma(png: Buffer, from: number, to: number): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const x0 = Math.floor(info.width * from);
  const x1 = Math.max(x0 + 1, Math.floor(info.width * to));
  let sum = 0;
  let n = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * info.width + x) * 3;
      sum += 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
      n++;
    }
  }
  return sum / n;
}

/**
 * Inspecting edits in Debian's Chromium (software WebGL), against the real api, studio and worker
 * with the procedural generator: the edit viewport orbits, history entries show their version,
 * two versions compare with a wipe, and a revert from the UI makes the next version equal to the
 * chosen one (docs/embed.md, "Inspecting edits").
 */
describe('inspecting edits in the studio, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(mode: StudioMode, sceneId: string): Promise<EmbeddedStudio & { page: Page }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const res = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode });
    expect(res.status).toBe(201);
    return { ...(await embedStudio(page, res.body.url as string, EDIT_FRAME)), page };
  }

  /** A daylight scene and, through the studio's own form, a night edit of it: version 1 bright, version 2 dark. */
  async function dayThenNight(mode: StudioMode = 'edit') {
    const sceneId = await readyScene(stack.api, stack.org, { prompt: 'A bright sunny meadow with pines at noon' });
    const studio = await open(mode, sceneId);
    const { frame } = studio;
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    const dayLuma = await meanLuma(frame);
    await frame.locator('#edit-submit[aria-disabled="false"]').waitFor({ timeout: RENDER_TIMEOUT });
    await frame.getByRole('textbox', { name: 'Edit instruction' }).fill('make it night');
    await frame.getByRole('button', { name: 'Apply edit' }).click();
    await waitForVersion(frame, 2, RENDER_TIMEOUT);
    const nightLuma = await meanLuma(frame);
    // The premise of every comparison below: the two versions look different from the same camera.
    expect(nightLuma).toBeLessThan(dayLuma * 0.8);
    return { ...studio, sceneId, dayLuma, nightLuma };
  }

  async function dragOnCanvas(page: Page, frame: Frame, fromX: number, dx: number, dy = 0): Promise<void> {
    const box = (await frame.locator('.viewport-frame > canvas.viewport-canvas').boundingBox())!;
    const x = box.x + box.width * fromX;
    const y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + dx, y + dy, { steps: 8 });
    await page.mouse.up();
  }

  async function untilResting(frame: Frame, resting: boolean, what: string): Promise<void> {
    await pollUntil(
      () => frame.evaluate(() => (window as any).__studio.loopResting() as boolean),
      (r) => r === resting,
      { timeoutMs: RENDER_TIMEOUT, intervalMs: 100, what },
    );
  }

  it('the edit viewport orbits: dragging, the wheel and the arrow keys move the camera, which stays in orbit', async () => {
    const sceneId = await readyScene(stack.api, stack.org);
    const { page, frame } = await open('edit', sceneId);
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    const canvas = frame.getByRole('application', { name: 'Orbit view of the scene' });
    expect(await canvas.count()).toBe(1);
    expect(await navigation(frame)).toBe('orbit');

    // Untouched, the frame loop rests: no animation frames while nothing moves.
    await untilResting(frame, true, 'the untouched studio to rest its frame loop');
    const start = await cameraPosition(frame);
    const framesBefore = await frame.evaluate(() => (window as any).__studio.renderedFrames());
    await dragOnCanvas(page, frame, 0.5, 160);
    const afterDrag = await pollUntil(
      () => cameraPosition(frame),
      (p) => moved(p, start),
      { what: 'the drag to orbit the camera' },
    );
    // A new frame was drawn from there, not just a number changed.
    await frame.waitForFunction((n) => (window as any).__studio.renderedFrames() > n, framesBefore, { timeout: RENDER_TIMEOUT });

    // Each input below starts from a resting loop, so each proves that input wakes it.
    await untilResting(frame, true, 'the loop to rest again after the drag');
    await canvas.hover();
    await page.mouse.wheel(0, 600);
    const afterWheel = await pollUntil(
      () => cameraPosition(frame),
      (p) => moved(p, afterDrag),
      { what: 'the wheel to dolly' },
    );

    await canvas.focus();
    await untilResting(frame, true, 'the loop to rest again after the wheel');
    await page.keyboard.down('ArrowLeft');
    // Awake at once, from the key's event, not a rest tick later.
    expect(await frame.evaluate(() => (window as any).__studio.loopResting())).toBe(false);
    try {
      await pollUntil(
        () => cameraPosition(frame),
        (p) => moved(p, afterWheel),
        { what: 'the arrow key to orbit' },
      );
    } finally {
      await page.keyboard.up('ArrowLeft');
    }
    // Perform's keys do nothing here: no fly mode, no recording.
    await page.keyboard.press('KeyF');
    await page.keyboard.press('KeyR');
    expect(await navigation(frame)).toBe('orbit');
    expect((await studioEvents(page)).map((e) => e.type)).not.toContain('recording.started');
  });

  it('a history entry shows its version, marked as viewed rather than latest, until "Back to latest", even as edits land', async () => {
    const { page, frame, dayLuma, nightLuma } = await dayThenNight();
    const shot = await cameraPosition(frame);
    expect(await inspect(frame)).toMatchObject({ viewing: null, shown: 2 });
    expect(await frame.locator('#inspect-banner').isVisible()).toBe(false);
    const nightEntry = frame.locator('#edit-history li[data-version="2"] .turn-view');
    expect(await nightEntry.getAttribute('aria-pressed')).toBe('true');
    expect(await nightEntry.innerText()).toContain('Latest · on screen');

    await frame.getByRole('button', { name: /^View version 1/ }).click();
    await pollUntil(
      () => inspect(frame),
      (s) => s.viewing === 1 && s.shown === 1 && s.loading === null,
      {
        what: 'version 1 on screen',
        timeoutMs: RENDER_TIMEOUT,
      },
    );
    const banner = frame.locator('#inspect-banner');
    expect(await banner.isVisible()).toBe(true);
    expect(await banner.innerText()).toMatch(/Viewing version 1 · latest is version 2/);
    expect(await frame.locator('.scene-card-detail').innerText()).toBe('Viewing version 1; the latest is version 2.');
    expect(await frame.locator('#version-origin .turn-view').getAttribute('aria-pressed')).toBe('true');
    expect(await frame.locator('#version-origin').innerText()).toContain('On screen');
    expect(await nightEntry.getAttribute('aria-pressed')).toBe('false');
    expect(await nightEntry.innerText()).toContain('Latest');
    // The daylight version is what is drawn, from the same camera.
    expect(await meanLuma(frame)).toBeGreaterThan(nightLuma * 1.2);
    expect(Math.abs((await meanLuma(frame)) - dayLuma)).toBeLessThan(dayLuma * 0.1);
    expect(await cameraPosition(frame)).toEqual(shot);
    expect(await frame.locator('#studio-live').innerText()).toMatch(/version 1/i);
    await page.locator('#studio-under-test').screenshot({ path: artifactPath('edit-viewing-version.png') });

    // An edit landing meanwhile does not pull the viewed version away: it waits for the way back.
    await frame.getByRole('textbox', { name: 'Edit instruction' }).fill('add five trees');
    await frame.getByRole('button', { name: 'Apply edit' }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().loadedVersion === 3, undefined, { timeout: RENDER_TIMEOUT });
    expect(await inspect(frame)).toMatchObject({ viewing: 1, shown: 1 });
    expect(await banner.innerText()).toMatch(/Viewing version 1 · latest is version 3/);
    expect(await meanLuma(frame)).toBeGreaterThan(nightLuma * 1.2);

    await frame.getByRole('button', { name: 'Back to latest' }).click();
    await pollUntil(
      () => inspect(frame),
      (st) => st.viewing === null && st.shown === 3 && st.loading === null,
      {
        what: 'the latest version back on screen',
        timeoutMs: RENDER_TIMEOUT,
      },
    );
    expect(await banner.isVisible()).toBe(false);
    expect(await meanLuma(frame)).toBeLessThan(dayLuma * 0.8);
    expect(await frame.locator('#edit-history li[data-version="3"] .turn-view').getAttribute('aria-pressed')).toBe('true');
    expect(await nightEntry.getAttribute('aria-pressed')).toBe('false');
  });

  it('compares two versions with a wipe: A left of the divider, B right of it, one camera for both', async () => {
    const { page, frame } = await dayThenNight();
    const compareToggle = frame.locator('#compare-toggle');
    // The defaults are the last two versions.
    expect(await frame.getByLabel('Left (A)').inputValue()).toBe('1');
    expect(await frame.getByLabel('Right (B)').inputValue()).toBe('2');
    await compareToggle.click();
    await pollUntil(
      () => inspect(frame),
      (s) => s.compare?.shownB === 2 && s.shown === 1 && s.loading === null,
      {
        what: 'both versions on screen',
        timeoutMs: RENDER_TIMEOUT,
      },
    );
    expect(await compareToggle.getAttribute('aria-pressed')).toBe('true');
    expect(await frame.locator('#inspect-banner').innerText()).toMatch(/Comparing version 1 with version 2/);
    const divider = frame.getByRole('slider', { name: /Wipe between version 1 \(left\) and version 2 \(right\)/ });
    expect(await divider.getAttribute('aria-valuenow')).toBe('50');

    // The composited frame: the left half is version 1's day, the right half version 2's night.
    const viewportFrame = frame.locator('.viewport-frame');
    const split = await viewportFrame.screenshot();
    const [left, right] = [await bandLuma(split, 0.05, 0.45), await bandLuma(split, 0.55, 0.95)];
    expect(left).toBeGreaterThan(right * 1.2);
    // The whole studio as a person sees it, kept as a CI artifact.
    await page.locator('#studio-under-test').screenshot({ path: artifactPath('edit-compare.png') });

    // Dragging the divider to the right shows more of version 1.
    const box = (await viewportFrame.boundingBox())!;
    const handle = (await divider.boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.9, handle.y + handle.height / 2, { steps: 6 });
    await page.mouse.up();
    const dragged = await pollUntil(
      () => inspect(frame),
      (s) => (s.compare?.split ?? 0) > 0.85,
      { what: 'the divider to move' },
    );
    expect(dragged.compare!.split).toBeLessThan(0.95);
    expect(Number(await divider.getAttribute('aria-valuenow'))).toBeGreaterThan(85);
    const wide = await viewportFrame.screenshot();
    expect(await bandLuma(wide, 0.6, 0.8)).toBeGreaterThan((await bandLuma(split, 0.6, 0.8)) * 1.2);

    // The keyboard moves it too: Home puts all of version 2 on screen.
    await divider.focus();
    await page.keyboard.press('Home');
    expect(await divider.getAttribute('aria-valuenow')).toBe('0');
    await page.keyboard.press('ArrowRight');
    expect(await divider.getAttribute('aria-valuenow')).toBe('5');
    await page.keyboard.press('Home');
    const allB = await viewportFrame.screenshot();
    expect(await bandLuma(allB, 0.05, 0.45)).toBeLessThan(left * 0.85);

    // Orbiting moves both views: the second camera follows the first.
    const before = await cameraPosition(frame);
    await dragOnCanvas(page, frame, 0.3, 120);
    const after = await pollUntil(
      () => cameraPosition(frame),
      (p) => moved(p, before),
      { what: 'the drag to orbit' },
    );
    await pollUntil(
      () => inspect(frame),
      (s) => s.compare !== null && s.compare.cameraPosition.every((v, i) => Math.abs(v - after[i]) < 1e-6),
      { what: 'the second view to follow the camera', timeoutMs: RENDER_TIMEOUT },
    );

    await compareToggle.click();
    await pollUntil(
      () => inspect(frame),
      (s) => s.compare === null,
      { what: 'the comparison to close' },
    );
    expect(await frame.locator('.compare-frame, #compare-divider').count()).toBe(0);
  });

  it('revert from the history adds version 3, equal to version 1, and tells the parent', async () => {
    const { page, frame, secret, dayLuma, nightLuma } = await dayThenNight('edit_and_perform');
    // The latest version has nothing to revert to; the others do.
    expect(await frame.locator('[data-revert-version="2"]').count()).toBe(0);
    await frame.getByRole('button', { name: 'Revert to version 1' }).click();

    const reverts = async () => (await studioEvents(page)).filter((e) => e.payload.revertTo === 1);
    await pollUntil(reverts, (events) => events.some((e) => e.type === 'edit.succeeded'), {
      what: 'edit.succeeded for the revert',
      timeoutMs: 20_000,
    });
    const [revertStarted, revertSucceeded] = await reverts();
    expect(revertStarted).toEqual({
      type: 'edit.started',
      payload: { operationId: expect.stringMatching(/^op_/), instruction: 'Revert to version 1', revertTo: 1 },
    });
    expect(revertSucceeded).toEqual({
      type: 'edit.succeeded',
      payload: { operationId: revertStarted.payload.operationId, instruction: 'Revert to version 1', version: 3, revertTo: 1 },
    });

    const entry = frame.locator('#edit-history li[data-revert-to="1"]');
    await entry.locator('.turn-view').waitFor();
    expect(await entry.getAttribute('data-status')).toBe('succeeded');
    expect(await entry.innerText()).toMatch(/Revert to version 1[\s\S]*version 3/);
    expect(await frame.locator('#edit-history li').count()).toBe(2);
    await waitForVersion(frame, 3, RENDER_TIMEOUT);
    expect(await inspect(frame)).toMatchObject({ viewing: null, shown: 3 });
    // Day again on screen.
    expect(await meanLuma(frame)).toBeGreaterThan(nightLuma * 1.2);
    expect(Math.abs((await meanLuma(frame)) - dayLuma)).toBeLessThan(dayLuma * 0.1);

    // On the server, version 3 is version 1: the same files (bytes and digests) and the same spec.
    const bearer = { Authorization: `Bearer ${secret}` };
    const content = async (version: number) => {
      const list = await stack.studio.http().get(`/studio-api/v1/scene/versions/${version}/artifacts`).set(bearer);
      const spec = await stack.studio.http().get(`/studio-api/v1/scene/versions/${version}/spec`).set(bearer);
      const mesh = await stack.studio
        .http()
        .get(`/studio-api/v1/scene/versions/${version}/artifacts/mesh`)
        .set(bearer)
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      return {
        artifacts: list.body.artifacts,
        spec: spec.body,
        meshSha256: createHash('sha256')
          .update(mesh.body as Buffer)
          .digest('hex'),
      };
    };
    const [v1, v2, v3] = [await content(1), await content(2), await content(3)];
    expect(v3).toEqual(v1);
    expect(v2.meshSha256).not.toBe(v1.meshSha256);

    // An edit turn's entry is a version too: the night edit, now neither the first nor the latest.
    await frame.getByRole('button', { name: /^View version 2: make it night/ }).click();
    await pollUntil(
      () => inspect(frame),
      (st) => st.viewing === 2 && st.shown === 2 && st.loading === null,
      {
        what: 'version 2 on screen',
        timeoutMs: RENDER_TIMEOUT,
      },
    );
    expect(await meanLuma(frame)).toBeLessThan(dayLuma * 0.8);
    expect(await frame.locator('#inspect-banner').innerText()).toMatch(/Viewing version 2 · latest is version 3/);
    expect(await frame.locator('#edit-history li[data-version="2"] .turn-view').getAttribute('aria-pressed')).toBe('true');
    expect(await frame.locator('#edit-history li[data-version="3"] .turn-view').getAttribute('aria-pressed')).toBe('false');
  });
});
