import { Frame, Page } from 'playwright-core';
import type { CameraPathDocument, CameraPathKeyframe, KeyframeEasing } from '../../apps/studio-web/src/model/camera-path';
import type { TimelineState } from '../../apps/studio-web/src/perform/timeline/timeline';
import { pathDocument } from '../factories/camera-path.factory';

export const timeline = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state().perform.timeline as TimelineState);

export const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The angle between two orientations, in degrees (q and −q are the same one). */
export const angleDeg = (a: readonly number[], b: readonly number[]) => {
  // Path files round quaternions to 1e-6: normalise, or acos reads the rounding as an angle.
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) / (Math.hypot(...a) * Math.hypot(...b));
  return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
};

/** For `frame.waitForFunction`: the camera is more than 0.3 m from `start` (never, without one). */
export const MOVED_FROM = (start: readonly number[] | null): boolean => {
  if (!start) return false;
  const p = (window as any).__studio.camera().position as number[];
  return Math.hypot(p[0] - start[0], p[1] - start[1], p[2] - start[2]) > 0.3;
};

/** Moves the timeline's playhead with its scrub bar, as a hand would. */
export async function seek(frame: Frame, ms: number): Promise<void> {
  await frame.locator('#timeline-scrub').fill(String(ms));
  await frame.waitForFunction((t) => (window as any).__studio.state().perform.timeline.playheadMs === t, ms);
}

/** Waits until playback stopped with the playhead at the move's end (software WebGL plays slowly). */
export async function waitForMoveEnd(frame: Frame): Promise<void> {
  await frame.waitForFunction(
    () => {
      const tl = (window as any).__studio.state().perform.timeline;
      return !tl.playing && tl.playheadMs === tl.durationMs;
    },
    undefined,
    { timeout: 120_000 },
  );
}

/** Imports a camera-path file with the Camera move section's file input; resolves once the timeline holds its keyframes. */
export async function importMove(frame: Frame, doc: CameraPathDocument, fileName = 'move.json'): Promise<void> {
  await frame
    .getByLabel('Import camera path')
    .setInputFiles({ name: fileName, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await frame.waitForFunction((n) => (window as any).__studio.state().perform.timeline.keyframes.length === n, doc.keyframes?.length ?? 0);
}

/**
 * Three keyframes at three of the scene's presets, evenly spaced over a move of `durationS`:
 * the playhead first, then the camera, then "Add keyframe" (the last one by its key, I).
 */
export async function authorThreeKeyframes(page: Page, frame: Frame, durationS = 6): Promise<TimelineState> {
  await frame.locator('#timeline-duration').fill(String(durationS));
  await frame.locator('#timeline-duration').press('Enter');
  await frame.waitForFunction((ms) => (window as any).__studio.state().perform.timeline.durationMs === ms, durationS * 1000);
  const presets = frame.locator('#camera-presets button');
  const times = [0, durationS * 500, durationS * 1000];
  for (const [i, t] of times.entries()) {
    await seek(frame, t);
    await presets.nth(i).click();
    const preset = await frame.evaluate(() => (window as any).__studio.state().perform.framing.activeView as string);
    await frame.waitForFunction((name) => (window as any).__studio.state().perform.framing.activeView === name, preset);
    if (i < 2) {
      await frame.getByRole('button', { name: 'Add keyframe at playhead' }).click();
    } else {
      await page.keyboard.press('KeyI');
    }
    await frame.waitForFunction((n) => (window as any).__studio.state().perform.timeline.keyframes.length === n, i + 1);
  }
  return timeline(frame);
}

/** Sets the Render section's frame rate, resolution and format. */
export async function chooseRender(frame: Frame, choice: { fps: number; resolution: string; container: string }): Promise<void> {
  const fps = frame.getByLabel('Frame rate');
  await fps.scrollIntoViewIfNeeded();
  await fps.selectOption(String(choice.fps));
  await frame.getByLabel('Resolution').selectOption(choice.resolution);
  await frame.getByLabel('Format').selectOption(choice.container);
}

/** Three shots of the test scenes, wide to tight, for authored moves built in tests. */
const SHOTS: Omit<CameraPathKeyframe, 't' | 'easing'>[] = [
  { position: [0, 12, 40], quaternion: [0, 0, 0, 1], focalLengthMm: 24, focusDistanceM: 40, fNumber: 2.8, rollDeg: 0 },
  { position: [10, 8, 25], quaternion: [0, 0.258819, 0, 0.965926], focalLengthMm: 50, focusDistanceM: 20, fNumber: 4, rollDeg: 0 },
  { position: [-5, 4, 12], quaternion: [0, -0.130526, 0, 0.991445], focalLengthMm: 85, focusDistanceM: 10, fNumber: 4, rollDeg: 0 },
];

/**
 * A camera-path file of an authored 2.39:1 move (as a person would import one): keyframe i is
 * shot i at `keys[i].t` with its easing.
 */
export function scopeMoveDocument(
  keys: { t: number; easing: KeyframeEasing }[],
  durationMs: number,
  smoothing: number,
): CameraPathDocument {
  return pathDocument(durationMs, {
    video: { mimeType: '', aspect: 2.39 },
    keyframes: keys.map((k, i) => ({ ...SHOTS[i], ...k })),
    smoothing,
  }) as unknown as CameraPathDocument;
}
