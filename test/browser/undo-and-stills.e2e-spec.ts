import { Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { timeline } from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { imageStats, openPerformStudioOnPartnerPage, postedBlob, waitForEvent } from '../support/studio-frame';

/** Software WebGL (SwiftShader) draws and encodes a 1080p still in a few seconds on two busy cores. */
const STILL_TIMEOUT = 60_000;

const state = (frame: Frame) => frame.evaluate(() => (window as any).__studio.state().perform);
const focal = async (frame: Frame) => (await frame.evaluate(() => (window as any).__studio.camera().focalLengthMm)) as number;

/** Waits until the studio's live region says `text` (it is cleared and refilled for every message). */
async function announced(frame: Frame, text: string): Promise<void> {
  await frame.waitForFunction((t) => document.getElementById('studio-live')?.textContent === t, text, { timeout: 10_000 });
}

async function keyframeCount(frame: Frame, n: number): Promise<void> {
  await frame.waitForFunction((count) => (window as any).__studio.state().perform.timeline.keyframes.length === count, n);
}

/**
 * Issue 27, items 4 and 5, through the reference partner page (examples/partner-app), by keyboard
 * only: keyframes added, undone and redone; a lens change undone; unsaved keyframes protected by
 * an in-page confirmation when a saved move is loaded; and a still of the view handed to the
 * parent as a PNG of the requested size, which the page offers for download.
 */
describe('undo and redo, and stills, by keyboard in the partner page', () => {
  const stack = setUpEmbedStack();
  const openStudio = async (page: Page): Promise<Frame> => (await openPerformStudioOnPartnerPage(page, stack.partner.origin)).frame;

  it('undoes and redoes keyframes and a lens change, asks before unsaved keyframes are replaced, and hands over a PNG still', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const page = await context.newPage();
      const frame = await openStudio(page);
      const add = frame.getByRole('button', { name: 'Add keyframe at playhead' });
      const scrub = frame.locator('#timeline-scrub');

      // Two keyframes: at the start, and (End on the scrub bar) at the move's end, 10 s.
      await add.focus();
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 1);
      await scrub.focus();
      await page.keyboard.press('End');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playheadMs === 10_000);
      await add.focus();
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 2);

      await page.keyboard.press('Control+z');
      await keyframeCount(frame, 1);
      await announced(frame, 'Undone: Keyframe 2 added at 10.00 s.');
      expect((await timeline(frame)).keyframes.map((k) => k.t)).toEqual([0]);
      await page.keyboard.press('Control+Shift+z');
      await keyframeCount(frame, 2);
      await announced(frame, 'Redone: Keyframe 2 added at 10.00 s.');
      expect((await timeline(frame)).keyframes.map((k) => k.t)).toEqual([0, 10_000]);

      // A lens change with the focal length slider's keys, undone while the slider has focus.
      const before = await focal(frame);
      await frame.locator('#focal-length').focus();
      await page.keyboard.press('End');
      await frame.waitForFunction((mm) => (window as any).__studio.camera().focalLengthMm !== mm, before);
      const zoomed = await focal(frame);
      expect(zoomed).toBeGreaterThan(before);
      await page.keyboard.press('Control+z');
      await frame.waitForFunction((mm) => (window as any).__studio.camera().focalLengthMm === mm, before);
      await announced(frame, `Undone: Focal length ${zoomed} mm.`);
      // The keyframes were not touched by the lens's undo.
      expect((await timeline(frame)).keyframes).toHaveLength(2);

      // The Undo button, by its name: the keyframe again (the lens step is on the redo side now).
      const undo = frame.getByRole('button', { name: 'Undo', exact: true });
      const redo = frame.getByRole('button', { name: 'Redo', exact: true });
      await undo.focus();
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 1);
      expect((await state(frame)).history).toMatchObject({ undo: 1, redo: 2 });
      await redo.focus();
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 2);

      // Saved, then changed: loading the saved move asks first; Escape keeps the edit.
      await frame.getByLabel('Save the move as').focus();
      await page.keyboard.type('Two keys');
      await page.keyboard.press('Enter');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.savedMoves.length === 1);
      await scrub.focus();
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.timeline.playheadMs > 0);
      await add.focus();
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 3);
      const load = frame.getByRole('button', { name: 'Load camera move Two keys' });
      await load.focus();
      await page.keyboard.press('Enter');
      const dialog = frame.getByRole('dialog', { name: 'Discard unsaved keyframes?' });
      await dialog.waitFor();
      // The safe choice has focus first.
      expect(await frame.evaluate(() => document.activeElement?.textContent)).toBe('Keep editing');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await announced(frame, 'The camera move was kept.');
      expect((await timeline(frame)).keyframes).toHaveLength(3);
      // Again, and this time discard: the saved move is loaded and the history starts over.
      await load.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await keyframeCount(frame, 2);
      await frame.waitForFunction(() => (window as any).__studio.state().perform.history.undo === 0);
      expect((await state(frame)).history.redo).toBe(0);

      // A still at 1080p with depth of field on: the size chosen with the select's keys, taken with the button's key.
      await frame.getByLabel('Depth of field').focus();
      await page.keyboard.press('Space');
      await frame.waitForFunction(() => (window as any).__studio.state().perform.depthOfField === true);
      const size = frame.getByLabel('Still size (PNG)');
      await size.focus();
      await page.keyboard.press('Home');
      expect(await size.inputValue()).toBe('1080p');
      await frame.getByRole('button', { name: 'Take still' }).focus();
      await page.keyboard.press('Enter');
      const completed = await waitForEvent(page, 'still.completed', STILL_TIMEOUT, 'partnerEvents');
      expect(completed.payload).toMatchObject({ mimeType: 'image/png', width: 1920, height: 1080, sceneVersion: 1, depthOfField: true });
      expect(completed.payload.camera).toMatchObject({ focalLengthMm: before, sensor: 'full-frame', aspect: '16:9' });

      const png = await postedBlob(page, 'still.completed', 'image', 'partnerEvents');
      expect(completed.payload.sizeBytes).toBe(png.length);
      const meta = await sharp(png).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 1920, height: 1080 });
      // Not blank: the scene is drawn, with light and shade.
      const stats = await imageStats(png);
      expect(stats.lumaStdDev).toBeGreaterThan(2);
      expect(stats.distinctColors).toBeGreaterThan(8);

      // The partner page offers it for download, and the live view is given back at its size.
      const link = page.locator('#events a[download$=".png"]');
      await link.waitFor();
      expect(await link.getAttribute('href')).toMatch(/^blob:/);
      expect((await state(frame)).still).toMatchObject({ taking: false, stills: 1, last: { width: 1920, height: 1080 } });
    } finally {
      await context.close();
    }
  }, 240_000);
});
