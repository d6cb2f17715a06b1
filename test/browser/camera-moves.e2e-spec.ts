import { readFileSync } from 'node:fs';
import { BrowserContext, Frame, Page } from 'playwright-core';
import type { CameraPathDocument, CameraPathKeyframe } from '../../apps/studio-web/src/model/camera-path';
import { parseCameraPathFile } from '../../apps/studio-web/src/model/camera-path-file';
import { moveFromKeyframes } from '../../apps/studio-web/src/model/keyframe-move';
import { deviation, takeTolerance } from '../../apps/studio-web/src/perform/timeline/take-keyframes';
import type { TimelineState } from '../../apps/studio-web/src/perform/timeline/timeline';
import type { MovePose } from '../../apps/studio-web/src/model/camera-move';
import { createEmbedSession, readyScene } from '../factories/embed.factory';
import { artifactPath } from '../support/browser';
import {
  angleDeg,
  authorThreeKeyframes as authorThree,
  distance,
  importMove,
  scopeMoveDocument,
  seek,
  timeline,
  waitForMoveEnd,
} from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { frameClock, installFrameClock } from '../support/frame-clock';
import { pollUntil } from '../support/poll';
import { EmbeddedStudio, embedStudio, StudioMode, studioEvents, waitForEvent, waitForVersion } from '../support/studio-frame';

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

interface DebugCamera {
  position: Vec3;
  quaternion: Quat;
  focalLengthMm: number;
  focusDistance: number;
  fNumber: number;
}

/** Software WebGL (SwiftShader) draws 5–7 frames a second: waits get generous deadlines. */
const RENDER_TIMEOUT = 30_000;
/** A test that plays a move and waits on software WebGL frames throughout. */
const PLAYBACK_TEST_MS = 180_000;

const camera = (frame: Frame) => frame.evaluate(() => (window as any).__studio.camera() as DebugCamera);

/** How far the camera is from a pose: metres, degrees, millimetres of focal length. */
function offBy(cam: DebugCamera, pose: MovePose): { m: number; deg: number; mm: number } {
  return {
    m: distance(cam.position, pose.position),
    deg: angleDeg(cam.quaternion, pose.quaternion),
    mm: Math.abs(cam.focalLengthMm - pose.focalLengthMm),
  };
}

/** The camera shows `pose` (to the file's precision: 0.1 mm, 1e-6 of a quaternion, 0.01 mm of focal length). */
const AT_POSE = (o: { m: number; deg: number; mm: number }) => o.m < 2e-3 && o.deg < 0.05 && o.mm < 0.02;

async function waitForCameraAt(frame: Frame, pose: MovePose, what: string): Promise<DebugCamera> {
  return pollUntil(
    () => camera(frame),
    (cam) => AT_POSE(offBy(cam, pose)),
    { timeoutMs: RENDER_TIMEOUT, what: `the camera at ${what}` },
  );
}

/** The pose the move makes at `t`, by the formula (docs/camera-paths.md), from the keyframes the studio holds. */
const poseAt = (state: TimelineState, t: number) => moveFromKeyframes(state.keyframes, state.smoothing, state.durationMs).poseAt(t);

/**
 * Camera moves you can author (issue 14, item 3), in Debian's Chromium against the real stack:
 * keyframes on a timeline, playback through them, scrubbing, easing and smoothing, a take's path
 * turned into keyframes, import and export (the parent receives the file), saving and loading.
 */
describe('camera moves on a timeline, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  let sceneId: string;

  beforeAll(async () => {
    sceneId = await readyScene(stack.api, stack.org, { prompt: 'A calm lake among pines at sunset, a wooden cabin on the shore' });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(mode: StudioMode = 'perform', size = { width: 960, height: 600 }): Promise<EmbeddedStudio & { page: Page }> {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    // Follows real time unless a test holds it.
    await installFrameClock(context, stack.embedOrigin, 30);
    const page = await context.newPage();
    await page.goto(stack.partner.origin);
    const res = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode });
    expect(res.status).toBe(201);
    const embedded = await embedStudio(page, res.body.url as string, size);
    await waitForVersion(embedded.frame, 1, RENDER_TIMEOUT);
    return { ...embedded, page };
  }

  /** Three keyframes 3 s apart in a 6 s move, each a different shot. */
  async function authorThreeKeyframes(page: Page, frame: Frame): Promise<TimelineState> {
    const state = await authorThree(page, frame, 6);
    expect(state.keyframes.map((k) => [k.t, k.easing])).toEqual([
      [0, 'ease-in-out'],
      [3000, 'ease-in-out'],
      [6000, 'ease-in-out'],
    ]);
    // Three different shots: different places and lenses.
    expect(distance(state.keyframes[0].position, state.keyframes[1].position)).toBeGreaterThan(1);
    expect(distance(state.keyframes[1].position, state.keyframes[2].position)).toBeGreaterThan(1);
    return state;
  }

  it(
    'three keyframes, then play: the camera goes through each keyframe, on the move the formula gives, frame after frame',
    async () => {
      const { page, frame } = await open();
      const state = await authorThreeKeyframes(page, frame);
      expect(await frame.getByRole('list', { name: 'Keyframes' }).getByRole('button').count()).toBe(3);
      await page.locator('#studio-under-test').screenshot({ path: artifactPath('timeline-three-keyframes.png') });

      // Record what each drawn frame shows with the playhead it was drawn for (an animation-frame
      // callback registered after the viewport's own runs after it, every frame).
      await frame.evaluate(() => {
        const w = window as any;
        w.__moveFrames = [];
        const sample = () => {
          const tl = w.__studio.state().perform.timeline;
          const c = w.__studio.camera();
          w.__moveFrames.push({
            t: tl.playheadMs,
            playing: tl.playing,
            position: c.position,
            quaternion: c.quaternion,
            focalLengthMm: c.focalLengthMm,
          });
          if (!w.__stopMoveFrames) requestAnimationFrame(sample);
        };
        requestAnimationFrame(sample);
      });
      await frame.locator('canvas').focus();
      await page.keyboard.press('KeyL');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playing === true);
      await frame.getByRole('button', { name: 'Pause the camera move' }).waitFor();
      await waitForMoveEnd(frame);
      // The last frame is drawn after playback ends: wait for it before reading the frames.
      await waitForCameraAt(frame, state.keyframes[2], 'the last keyframe');
      const frames = await frame.evaluate(() => {
        const w = window as any;
        w.__stopMoveFrames = true;
        return w.__moveFrames as { t: number; playing: boolean; position: Vec3; quaternion: Quat; focalLengthMm: number }[];
      });

      // From the first frame drawn while playing (before it, the playhead rested at the end).
      const played = frames.slice(frames.findIndex((f) => f.playing));
      expect(played[0].t).toBeLessThan(1000);
      expect(played.length).toBeGreaterThanOrEqual(6);
      // The playhead only goes forward, and every frame shows the move's pose at its playhead.
      for (let i = 1; i < played.length; i++) expect(played[i].t).toBeGreaterThanOrEqual(played[i - 1].t);
      for (const f of played) {
        const o = offBy({ ...f, focusDistance: 0, fNumber: 0 }, poseAt(state, f.t));
        expect(o.m).toBeLessThan(2e-3);
        expect(o.deg).toBeLessThan(0.05);
        expect(o.mm).toBeLessThan(0.02);
      }
      // Through each keyframe: some frame is within 5 % of the way to its neighbour (frames come
      // 150–250 ms apart on software WebGL, and the ease-in-out slows the camera at each one).
      const segment = Math.min(
        distance(state.keyframes[0].position, state.keyframes[1].position),
        distance(state.keyframes[1].position, state.keyframes[2].position),
      );
      for (const k of state.keyframes) {
        const nearest = Math.min(...played.map((f) => distance(f.position, k.position)));
        expect(nearest).toBeLessThan(0.05 * segment);
      }
      expect(played.some((f) => f.t > 1000 && f.t < 5000)).toBe(true);
      await frame.getByRole('button', { name: 'Play the camera move' }).waitFor();
    },
    PLAYBACK_TEST_MS,
  );

  it('scrubbing puts the camera at the move’s pose for that time, and a keyframe goes back to its pose', async () => {
    const { page, frame } = await open();
    const state = await authorThreeKeyframes(page, frame);

    for (const t of [1230, 4500, 2990]) {
      await seek(frame, t);
      await waitForCameraAt(frame, poseAt(state, t), `the pose of ${t} ms`);
      expect(await frame.locator('#timeline-scrub').getAttribute('aria-valuetext')).toBe(`${(t / 1000).toFixed(2)} s of 6.00 s`);
    }
    // The playhead typed as a number does the same.
    await frame.getByLabel('Playhead (s)').fill('5.5');
    await frame.getByLabel('Playhead (s)').press('Enter');
    await waitForCameraAt(frame, poseAt(state, 5500), 'the pose of 5.5 s');

    // Choosing a keyframe goes to it, and its time, easing and actions show.
    await frame.getByRole('button', { name: /^Keyframe 2 at 3\.00 s/ }).click();
    await waitForCameraAt(frame, state.keyframes[1], 'keyframe 2');
    expect((await timeline(frame)).selected).toBe(1);
    expect(await frame.getByLabel('Time (s)').inputValue()).toBe('3.00');
    expect(await frame.getByLabel('Easing to the next').inputValue()).toBe('ease-in-out');
    // , and . step between keyframes.
    await frame.locator('canvas').focus();
    await page.keyboard.press('Period');
    await waitForCameraAt(frame, state.keyframes[2], 'keyframe 3 (.)');
    await page.keyboard.press('Comma');
    await waitForCameraAt(frame, state.keyframes[1], 'keyframe 2 (,)');

    // A keyframe's time, typed: it moves, and a time taken by another keyframe is refused.
    await frame.getByLabel('Time (s)').fill('6');
    await frame.getByLabel('Time (s)').press('Enter');
    expect(await frame.getByLabel('Time (s)').getAttribute('aria-invalid')).toBe('true');
    expect(await frame.locator('#keyframe-time-error').innerText()).toBe('Another keyframe is at 6.00 s.');
    await frame.getByLabel('Time (s)').fill('2');
    await frame.getByLabel('Time (s)').press('Enter');
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes[1].t === 2000);
    expect(await frame.getByLabel('Time (s)').getAttribute('aria-invalid')).toBeNull();

    // A hand on the camera stops playback where it is. The clock held, the move cannot reach its
    // end first: on a busy machine a click may take longer than the rest of the move.
    await frameClock.hold(frame);
    await frame.getByRole('button', { name: 'Play the camera move' }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playing === true);
    await frame.locator('#camera-presets button').nth(0).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playing === false, undefined, {
      timeout: RENDER_TIMEOUT,
    });
    await frame.waitForFunction(
      () => document.getElementById('studio-live')?.textContent === 'Playback stopped: the camera was moved by hand.',
    );
    expect((await timeline(frame)).playheadMs).toBeLessThan(6000);
    await frameClock.release(frame);

    // Update to camera and delete.
    const before = await camera(frame);
    await frame.locator('#camera-presets button').nth(3).click();
    const top = await pollUntil(
      () => camera(frame),
      (c) => distance(c.position, before.position) > 1,
      { timeoutMs: RENDER_TIMEOUT, what: 'the camera at the fourth preset' },
    );
    await frame.getByRole('button', { name: 'Update to camera' }).click();
    await frame.waitForFunction(
      (x) => Math.abs((window as any).__studio.state().perform.timeline.keyframes[1].position[0] - x) < 1e-3,
      top.position[0],
    );
    await frame.getByRole('button', { name: 'Delete', exact: true }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes.length === 2);
  });

  it('easing and smoothing change the mid-segment pose as docs/camera-paths.md says', async () => {
    const { page, frame } = await open();
    const state = await authorThreeKeyframes(page, frame);
    const [k1, k2] = state.keyframes;
    const along = (e: number): Vec3 => k1.position.map((x, d) => x + (k2.position[d] - x) * e) as Vec3;
    const at = async (what: string, check: (cam: DebugCamera) => boolean) => {
      await seek(frame, 0);
      await seek(frame, 1500);
      return pollUntil(() => camera(frame), check, { timeoutMs: RENDER_TIMEOUT, what });
    };

    // Straight lines (smoothing 0): half way through the first segment, the eased fraction.
    await frame.getByRole('slider', { name: 'Smoothing' }).fill('0');
    await frame.getByRole('button', { name: /^Keyframe 1 at 0\.00 s/ }).click();
    const easing = frame.getByLabel('Easing to the next');
    await easing.selectOption('ease-in');
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes[0].easing === 'ease-in');
    let cam = await at('ease-in: a quarter of the way', (c) => distance(c.position, along(0.25)) < 2e-3);
    expect(cam.focalLengthMm).toBeCloseTo(k1.focalLengthMm + (k2.focalLengthMm - k1.focalLengthMm) * 0.25, 2);
    await easing.selectOption('ease-out');
    await at('ease-out: three quarters of the way', (c) => distance(c.position, along(0.75)) < 2e-3);
    await easing.selectOption('linear');
    await at('linear: half way', (c) => distance(c.position, along(0.5)) < 2e-3);
    await easing.selectOption('hold');
    await at('hold: still at keyframe 1', (c) => distance(c.position, k1.position) < 2e-3);

    // Smoothing 100 %: the centripetal Catmull-Rom curve through the three keyframes instead.
    await easing.selectOption('linear');
    await frame.getByRole('slider', { name: 'Smoothing' }).fill('100');
    const smooth = await timeline(frame);
    expect(smooth.smoothing).toBe(1);
    const curved = poseAt(smooth, 1500);
    cam = await at('the curve', (c) => distance(c.position, curved.position) < 2e-3);
    // Off the straight line: the curve swings out towards the third keyframe's side.
    expect(distance(cam.position, along(0.5))).toBeGreaterThan(0.05);
    expect(await frame.getByRole('slider', { name: 'Smoothing' }).getAttribute('aria-valuetext')).toBe('100 %');
  });

  it(
    "edit last take's path: a take recorded while moving becomes keyframes that replay it",
    async () => {
      const { page, frame } = await open();
      const fromTake = frame.locator('#timeline-from-take');
      expect(await fromTake.isDisabled()).toBe(true);

      await frame.locator('canvas').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('KeyR');
      await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
      // While a take records the move does not change.
      expect((await timeline(frame)).editable).toBe(false);
      expect(await frame.getByRole('button', { name: 'Add keyframe at playhead' }).isDisabled()).toBe(true);
      const start = (await camera(frame)).position;
      await page.keyboard.down('KeyD');
      await page.keyboard.down('ArrowLeft');
      try {
        await frame.waitForFunction(
          (s) => {
            const p = (window as any).__studio.camera().position;
            return Math.hypot(p[0] - s[0], p[1] - s[1], p[2] - s[2]) > 3;
          },
          start,
          { timeout: RENDER_TIMEOUT },
        );
      } finally {
        await page.keyboard.up('ArrowLeft');
        await page.keyboard.up('KeyD');
      }
      await page.keyboard.press('KeyR');
      const completed = await waitForEvent(page, 'recording.completed', RENDER_TIMEOUT);
      const take = completed.payload.cameraPath as CameraPathDocument;
      expect(take.samples.length).toBeGreaterThan(3);

      // The button names the take it turns into keyframes (and waits, disabled, for the first).
      await frame.getByRole('button', { name: "Edit take 1's path" }).click();
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes.length >= 2);
      const state = await timeline(frame);
      expect(state.smoothing).toBe(0);
      expect(state.durationMs).toBe(take.durationMs);
      expect(state.keyframes.every((k) => k.easing === 'linear')).toBe(true);
      expect(state.keyframes.length).toBeLessThan(take.samples.length + 1);
      // The keyframes replay every sample of the take within the simplification's tolerance.
      const move = moveFromKeyframes(state.keyframes, 0, state.durationMs);
      const tolerance = takeTolerance(take.samples);
      for (const s of take.samples) expect(deviation(s, move.poseAt(s.t), tolerance)).toBeLessThanOrEqual(1.01);

      // And they play: from the start to the take's last pose.
      await frame.getByRole('button', { name: 'Play the camera move' }).click();
      await waitForMoveEnd(frame);
      const last = take.samples[take.samples.length - 1];
      const end = await waitForCameraAt(frame, state.keyframes[state.keyframes.length - 1], 'the last keyframe');
      expect(distance(end.position, last.position)).toBeLessThan(tolerance.positionM + 1e-3);

      // Recording a played move is another way to make a take: the timeline plays during a take
      // (but does not change: I is refused), and the take's path follows the move.
      await page.keyboard.press('KeyR');
      await waitForEvent(page, 'recording.started', RENDER_TIMEOUT);
      await frame.locator('canvas').focus();
      await page.keyboard.press('KeyI');
      await frame.waitForFunction(
        () => document.getElementById('studio-live')?.textContent === 'The camera move cannot change while a take records.',
      );
      expect((await timeline(frame)).keyframes).toEqual(state.keyframes);
      await page.keyboard.press('KeyL');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playing === true);
      await waitForMoveEnd(frame);
      await waitForCameraAt(frame, state.keyframes[state.keyframes.length - 1], 'the last keyframe, during the take');
      await page.keyboard.press('KeyR');
      await page.waitForFunction(
        () => (window as any).studioEvents.filter((e: { type: string }) => e.type === 'recording.completed').length === 2,
        undefined,
        { timeout: RENDER_TIMEOUT },
      );
      const second = (await studioEvents(page)).filter((e) => e.type === 'recording.completed')[1].payload.cameraPath as CameraPathDocument;
      const secondEnd = second.samples[second.samples.length - 1];
      expect(distance(secondEnd.position, state.keyframes[state.keyframes.length - 1].position)).toBeLessThan(1e-3);
      expect(second.samples.length).toBeGreaterThan(3);
      await frame.getByRole('button', { name: "Edit take 2's path" }).waitFor();
    },
    PLAYBACK_TEST_MS,
  );

  it('imports a camera-path file, and exports it to the parent page as an equivalent document', async () => {
    const { page, frame } = await open();
    const doc = scopeMoveDocument(
      [
        { t: 0, easing: 'ease-in' },
        { t: 2200, easing: 'linear' },
        { t: 4800, easing: 'hold' },
      ],
      5000,
      0.3,
    );
    const importInput = frame.getByLabel('Import camera path');
    // A file the studio cannot read is refused, saying why, and nothing changes.
    await importInput.setInputFiles({
      name: 'future.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ ...doc, formatVersion: 2 })),
    });
    await frame.locator('#camera-move-error').waitFor();
    expect(await frame.locator('#camera-move-error').innerText()).toBe(
      'The file was refused: Camera path format version 2 is not one this studio reads (it reads version 1).',
    );
    expect((await timeline(frame)).keyframes).toEqual([]);

    await importMove(frame, doc, 'dolly.json');
    expect(await frame.locator('#camera-move-error').isHidden()).toBe(true);
    const state = await timeline(frame);
    expect(state.keyframes).toEqual(doc.keyframes);
    expect(state).toMatchObject({ smoothing: 0.3, durationMs: 5000, playheadMs: 0 });
    // The rig takes the file's frame (full frame, 2.39:1), and the camera its first pose.
    expect((await frame.evaluate(() => (window as any).__studio.state().perform.framing.frame)).aspect).toBe('2.39:1');
    await waitForCameraAt(frame, doc.keyframes![0], 'the first keyframe');

    await frame.getByRole('button', { name: 'Export' }).click();
    const exported = await waitForEvent(page, 'camera-path.exported', RENDER_TIMEOUT);
    expect(exported.payload.fileName).toBe('camera-move.camera-path.json');
    const out = exported.payload.cameraPath as CameraPathDocument;
    expect(out).toMatchObject({
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 1,
      durationMs: 5000,
      video: { mimeType: '', aspect: 2.39 },
      sensor: doc.sensor,
      keyframes: doc.keyframes,
      smoothing: 0.3,
      markers: [],
    });
    expect(parseCameraPathFile(JSON.stringify(out)).ok).toBe(true);
    // Baked at 30 fps for tools that read only samples, on the same move.
    expect(out.samples).toHaveLength(151);
    const move = moveFromKeyframes(doc.keyframes!, 0.3, 5000);
    for (const s of out.samples.filter((_, i) => i % 10 === 0)) expect(distance(s.position, move.poseAt(s.t).position)).toBeLessThan(1e-3);
    // In the sandbox no download link is offered: the file went to the parent.
    expect(await frame.locator('#camera-move-download').isHidden()).toBe(true);
    expect((await studioEvents(page)).filter((e) => e.type === 'camera-path.exported')).toHaveLength(1);
  });

  it('opened on its own (not framed), the studio offers the exported move as a download', async () => {
    const context = await stack.browser.newContext({
      viewport: { width: 1280, height: 800 },
      reducedMotion: 'reduce',
      acceptDownloads: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    const res = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'perform' });
    await page.goto(res.body.url as string);
    const frame = page.mainFrame();
    await waitForVersion(frame, 1, RENDER_TIMEOUT);
    await frame.getByRole('button', { name: 'Add keyframe at playhead' }).click();
    await frame.getByRole('button', { name: 'Export' }).click();
    const link = frame.locator('#camera-move-download');
    await link.waitFor();
    expect(await link.getAttribute('download')).toBe('camera-move.camera-path.json');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('camera-move.camera-path.json');
    const parsed = parseCameraPathFile(readFileSync((await download.path())!, 'utf8'));
    expect(parsed.ok && parsed.document.keyframes).toEqual((await timeline(frame)).keyframes);
    // Posted too, with no parent to receive it.
    const posted = await frame.evaluate(() =>
      (window as any).__studio.events().filter((e: { type: string }) => e.type === 'camera-path.exported'),
    );
    expect(posted).toEqual([expect.objectContaining({ delivered: false })]);
  });

  it('saves the move under a name, loads it back, overwrites it by name and deletes it (the in-memory store)', async () => {
    const { page, frame } = await open();
    const authored = await authorThreeKeyframes(page, frame);
    const name = frame.getByRole('textbox', { name: 'Save the move as' });

    await name.fill('  Crane   up ');
    await frame.getByRole('button', { name: 'Save move' }).click();
    const load = frame.getByRole('button', { name: 'Load camera move Crane up' });
    await load.waitFor();
    expect((await timeline(frame)).savedMoves).toEqual([{ cameraPathId: expect.any(String), name: 'Crane up' }]);

    await frame.getByRole('button', { name: 'Remove every keyframe' }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes.length === 0);
    expect(await name.inputValue()).toBe('');
    await load.click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes.length === 3);
    let state = await timeline(frame);
    expect(state.keyframes).toEqual(authored.keyframes);
    expect(state).toMatchObject({ smoothing: authored.smoothing, durationMs: 6000 });
    expect(await name.inputValue()).toBe('Crane up');

    // Saving under the same name overwrites that move.
    await frame.getByRole('slider', { name: 'Smoothing' }).fill('20');
    await frame.getByRole('button', { name: 'Save move' }).click();
    await frame.waitForFunction(
      () => document.getElementById('studio-live')?.textContent === 'Camera move Crane up saved over the earlier one.',
    );
    // Changed since saved: loading asks first (an in-page dialog), and going ahead loads it.
    await frame.getByRole('slider', { name: 'Smoothing' }).fill('90');
    await load.click();
    await frame.getByRole('dialog', { name: 'Discard unsaved keyframes?' }).getByRole('button', { name: 'Discard and load' }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.smoothing === 0.2);
    state = await timeline(frame);
    expect(state.savedMoves).toHaveLength(1);

    // An empty name is refused; a move can be deleted.
    await name.fill('   ');
    await frame.getByRole('button', { name: 'Save move' }).click();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await frame.getByRole('button', { name: 'Delete camera move Crane up' }).click();
    await load.waitFor({ state: 'detached' });
    expect((await timeline(frame)).savedMoves).toEqual([]);
  });

  it.each<[StudioMode, { width: number; height: number }]>([
    ['perform', { width: 640, height: 360 }],
    ['edit_and_perform', { width: 960, height: 600 }],
  ])('at the minimum size (%s, %o) the Camera move section fits the panel and works', async (mode, size) => {
    const { page, frame } = await open(mode, size);
    if (mode === 'edit_and_perform') await frame.getByRole('tab', { name: 'Perform' }).click();
    const section = frame.getByRole('region', { name: 'Camera move' });
    await section.scrollIntoViewIfNeeded();
    const panel = (await frame.locator('#side-panel').boundingBox())!;
    expect(await section.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    for (const control of [
      frame.locator('#timeline-play'),
      frame.locator('#timeline-stop'),
      frame.getByLabel('Playhead (s)'),
      frame.locator('#timeline-scrub'),
      frame.getByRole('button', { name: 'Add keyframe at playhead' }),
      frame.getByRole('slider', { name: 'Smoothing' }),
      frame.getByLabel('Duration (s)'),
      frame.getByRole('button', { name: 'Save move' }),
      frame.getByRole('button', { name: 'Export' }),
    ]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(panel.x - 0.5);
      expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
    }
    await frame.getByRole('button', { name: 'Add keyframe at playhead' }).click();
    await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.keyframes.length === 1);
    await frame.getByRole('button', { name: /^Keyframe 1 at 0\.00 s/ }).scrollIntoViewIfNeeded();
    const editor = (await frame.locator('#keyframe-editor').boundingBox())!;
    expect(editor.x + editor.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
    await page.locator('#studio-under-test').screenshot({ path: artifactPath(`timeline-${mode}-${size.width}x${size.height}.png`) });
    await frame.getByRole('button', { name: 'Export' }).scrollIntoViewIfNeeded();
    await page.locator('#studio-under-test').screenshot({ path: artifactPath(`timeline-files-${mode}-${size.width}x${size.height}.png`) });

    // The help lists the timeline's keys.
    await frame.getByRole('button', { name: 'Help' }).click();
    const help = frame.getByRole('dialog', { name: 'Help' });
    expect(await help.getByRole('heading', { name: 'Camera move', exact: true }).count()).toBe(1);
    expect(await help.locator('kbd').allInnerTexts()).toEqual(expect.arrayContaining(['I', 'L', ', / .']));
  });

  it('an edit session has no timeline, and its keys do nothing', async () => {
    const { page, frame } = await open('edit', { width: 960, height: 600 });
    expect(await frame.locator('#timeline, #keyframes, #camera-move-export').count()).toBe(0);
    expect(await frame.getByRole('region', { name: 'Camera move' }).count()).toBe(0);
    expect(await frame.evaluate(() => (window as any).__studio.state().perform)).toBeNull();
    const before = await camera(frame);
    await frame.locator('.brand').click();
    for (const key of ['KeyI', 'KeyL', 'Period']) await page.keyboard.press(key);
    expect((await camera(frame)).position).toEqual(before.position);
    await frame.getByRole('button', { name: 'Help' }).click();
    const help = frame.getByRole('dialog', { name: 'Help' });
    await help.waitFor();
    expect(await help.getByRole('heading', { name: 'Camera move', exact: true }).count()).toBe(0);
    expect((await studioEvents(page)).map((e) => e.type)).not.toContain('camera-path.exported');
  });
});
