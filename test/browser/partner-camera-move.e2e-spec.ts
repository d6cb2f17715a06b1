import { Page } from 'playwright-core';
import { authorThreeKeyframes, chooseRender } from '../support/camera-moves';
import { setUpEmbedStack } from '../support/embed-stack';
import { openPerformStudioOnPartnerPage, postedBlob, startShortTake, studioEvents, waitForEvent } from '../support/studio-frame';
import { probeVideo } from '../support/video-probe';

/** Software WebGL (SwiftShader) draws a 1080p frame in about a fifth of a second here. */
const RENDER_TIMEOUT = 180_000;

/**
 * Issue 14's "done when", through the reference partner page (examples/partner-app), as a person
 * would: author a three-keyframe move in the studio, render it to an MP4 at 1080p30 and receive
 * it in the parent page, which offers it for download; and a take still recording when the
 * partner revokes the session arrives intact, before `session.ended`.
 */
describe('the partner page: an authored move rendered to MP4, and a take that outlives its session', () => {
  const stack = setUpEmbedStack();
  const openStudio = (page: Page) => openPerformStudioOnPartnerPage(page, stack.partner.origin);

  // A 1080p30 render in SwiftShader takes most of a minute on two busy cores.
  it('authors a three-keyframe move, renders it to MP4 at 1080p30, and the parent page receives and offers it', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const page = await context.newPage();
      const { frame } = await openStudio(page);
      const move = await authorThreeKeyframes(page, frame, 2);
      expect(move.keyframes.map((k) => k.t)).toEqual([0, 1000, 2000]);

      await frame.getByLabel('Source').selectOption('timeline');
      await chooseRender(frame, { fps: 30, resolution: '1080p', container: 'mp4' });
      await frame.getByRole('button', { name: 'Render', exact: true }).click();
      const completed = await waitForEvent(page, 'render.completed', RENDER_TIMEOUT, 'partnerEvents');
      expect(completed.payload).toMatchObject({ fps: 30, width: 1920, height: 1080, frames: 60, durationMs: 2000 });
      expect(completed.payload.mimeType).toMatch(/^video\/mp4/);

      // The file the parent got, read by FFmpeg: H.264 in MP4, 1920×1080, 60 frames, 2 s.
      const video = await probeVideo(await postedBlob(page, 'render.completed', 'video', 'partnerEvents'));
      expect(video).toMatchObject({ codec: 'h264', width: 1920, height: 1080, framesRead: 60 });
      expect(video.formatName).toContain('mp4');
      expect(video.durationS).toBeCloseTo(2, 1);
      // Its camera path is the authored move: the keyframes the timeline held.
      expect((completed.payload.cameraPath as { keyframes: unknown[] }).keyframes).toHaveLength(3);
      // And the partner page offers both for download.
      const link = page.locator('#events a[download$=".mp4"]');
      await link.waitFor();
      expect(await link.getAttribute('href')).toMatch(/^blob:/);
      expect(await page.locator('#events a[download$=".camera-path.json"]').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('a take recording when the partner revokes the session reaches the parent intact, before session.ended', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const page = await context.newPage();
      const { frame, embedSessionId } = await openStudio(page);
      await startShortTake(page, frame, { frames: 10, timeoutMs: 60_000, list: 'partnerEvents' });

      // The partner's backend revokes the session, as it would when its user leaves.
      const revoked = await stack.api.http().delete(`/v1/embed-sessions/${embedSessionId}`).set(stack.org.auth);
      expect(revoked.status).toBe(204);
      await waitForEvent(page, 'session.ended', 30_000, 'partnerEvents');
      const types = (await studioEvents(page, 'partnerEvents')).map((e) => e.type);
      expect(types.indexOf('recording.completed')).toBeGreaterThan(-1);
      expect(types.indexOf('recording.completed')).toBeLessThan(types.indexOf('session.ended'));

      const take = await probeVideo(await postedBlob(page, 'recording.completed', 'video', 'partnerEvents'));
      expect(take.formatName).toContain('webm');
      expect(take.framesRead).toBeGreaterThan(5);
      expect(take.durationS).not.toBeNull();
      expect(await page.locator('#events a[download$=".webm"]').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });
});
