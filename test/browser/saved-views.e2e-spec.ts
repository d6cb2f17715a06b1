import { BrowserContext, Frame, Page } from 'playwright-core';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { collectConsole } from '../support/browser';
import { MOVED_FROM } from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { EmbeddedStudio, embedStudio, StudioMode, waitForVersion } from '../support/studio-frame';

type Vec3 = [number, number, number];

/** Software WebGL (SwiftShader) draws slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 30_000;
const VIEW = 'Over the lake';

const camera = (frame: Frame) =>
  frame.evaluate(() => (window as any).__studio.camera() as { position: Vec3; focalLengthMm: number; roll: number });
const savedViewNames = (frame: Frame) =>
  frame.evaluate(() => ((window as any).__studio.state().perform.framing.savedViews as { name: string }[]).map((v) => v.name));

/**
 * Saved views live on the server per scene (docs/camera-paths.md, docs/embed.md "Presets"): a
 * view saved with "Save this view" in one perform session is listed, and can be gone to, in
 * another session of the same scene opened later in a fresh browser (nothing kept in the page),
 * and never appears in a session of another scene.
 */
describe('saved views, kept on the server per scene, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  let sceneId: string;
  let otherSceneId: string;

  beforeAll(async () => {
    [sceneId, otherSceneId] = await Promise.all([
      readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at sunset, a wooden cabin on the shore' }),
      readyScene(stack.api, stack.org, { prompt: 'A desert canyon at noon' }),
    ]);
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  /** A fresh browser context (no storage shared with any other) embedding a new session. */
  async function open(scene: string, mode: StudioMode): Promise<EmbeddedStudio & { page: Page }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const res = await createEmbedSession(stack.api, stack.org, { sceneId: scene, origin: stack.partner.origin, mode });
    expect(res.status).toBe(201);
    const embedded = await embedStudio(page, res.body.url as string, { width: 960, height: 540 });
    await waitForVersion(embedded.frame, 1, RENDER_TIMEOUT);
    return { ...embedded, page };
  }

  async function moveCamera(page: Page, frame: Frame): Promise<void> {
    const start = (await camera(frame)).position;
    await frame.locator('canvas').click({ position: { x: 5, y: 5 } });
    await page.keyboard.down('KeyW');
    try {
      await frame.waitForFunction(MOVED_FROM, start, { timeout: RENDER_TIMEOUT });
    } finally {
      await page.keyboard.up('KeyW');
    }
  }

  async function saveView(frame: Frame, name: string): Promise<void> {
    await frame.getByRole('textbox', { name: 'Save this view as a preset' }).fill(name);
    await frame.getByRole('button', { name: 'Save view' }).click();
    await frame.getByRole('button', { name: `Go to view ${name}` }).waitFor();
  }

  it('a view saved in one session is listed and can be gone to in the next one, and only in its scene', async () => {
    // Session 1: frame a shot on Super 35 at 85 mm, away from the presets, and save it.
    const first = await open(sceneId, 'perform');
    const console1 = collectConsole(first.page);
    await first.frame.getByLabel('Sensor').selectOption('super-35');
    await first.frame.getByRole('button', { name: '85 mm prime' }).click();
    await first.frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 85) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    await moveCamera(first.page, first.frame);
    const saved = await camera(first.frame);
    await saveView(first.frame, VIEW);
    expect(await savedViewNames(first.frame)).toEqual([VIEW]);
    expect(console1.filter((m) => m.type() === 'error').map((m) => m.text())).toEqual([]);

    // The server holds it as a view of this scene, with the frame it was framed in.
    const listed = await stack.studio
      .http()
      .get('/studio-api/v1/camera-paths')
      .set({ Authorization: `Bearer ${first.secret}` });
    expect(listed.body.cameraPaths).toEqual([expect.objectContaining({ kind: 'view', name: VIEW, keyframeCount: 1, durationMs: 0 })]);
    const document = (
      await stack.studio
        .http()
        .get(`/studio-api/v1/camera-paths/${listed.body.cameraPaths[0].cameraPathId}`)
        .set({ Authorization: `Bearer ${first.secret}` })
    ).body.document;
    expect(document).toMatchObject({ sceneVersion: 1, durationMs: 0, sensor: { widthMm: 24.89, heightMm: 18.66 }, samples: [] });
    expect(document.keyframes).toEqual([expect.objectContaining({ t: 0, focalLengthMm: 85, easing: 'hold' })]);
    await contexts.splice(0).pop()!.close();

    // Session 2, of the same scene, in a fresh browser: the view is listed as the studio opens.
    const second = await open(sceneId, 'edit_and_perform');
    await second.frame.locator('#tab-perform').click();
    const go = second.frame.getByRole('button', { name: `Go to view ${VIEW}` });
    await go.waitFor({ timeout: RENDER_TIMEOUT });
    expect(await savedViewNames(second.frame)).toEqual([VIEW]);
    expect((await camera(second.frame)).focalLengthMm).not.toBeCloseTo(85, 3);
    await go.click();
    await second.frame.waitForFunction((name) => (window as any).__studio.state().perform.framing.activeView === name, VIEW);
    // The camera object takes the rig's pose when a frame is drawn: wait for that frame.
    await second.frame.waitForFunction(() => Math.abs((window as any).__studio.camera().focalLengthMm - 85) < 1e-6, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    const back = await camera(second.frame);
    // Where the view was saved (the server's keyframe: the rig's pose at the save, which the
    // last frame drawn before it may trail by a step), and near where session 1 last drew.
    const keyframe = document.keyframes[0] as { position: number[] };
    back.position.forEach((v, i) => expect(v).toBeCloseTo(keyframe.position[i], 3));
    back.position.forEach((v, i) => expect(Math.abs(v - saved.position[i])).toBeLessThan(1));
    expect(back.focalLengthMm).toBeCloseTo(85, 6);

    // A session of another scene: its own views only (its list, as the server returns it after a save).
    const elsewhere = await open(otherSceneId, 'perform');
    await saveView(elsewhere.frame, 'Canyon rim');
    expect(await savedViewNames(elsewhere.frame)).toEqual(['Canyon rim']);
    expect(await elsewhere.frame.getByRole('button', { name: `Go to view ${VIEW}` }).count()).toBe(0);
  });
});
