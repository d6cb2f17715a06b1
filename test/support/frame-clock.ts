import { BrowserContext, Frame } from 'playwright-core';

// Shared with the studio benchmark, which is plain JavaScript.
const { installFrameClockScript } = require('../../scripts/frame-clock') as {
  installFrameClockScript: (arg: { origin: string; step: number }) => void;
};

/**
 * A clock the test holds in its hand, for takes of an exact length (scripts/frame-clock.js): in
 * the studio's origin, `performance.now()` and animation-frame times come from it. Held, it
 * stands still until `advance(n)` lets n animation frames pass, each 1000 / fps ms long; a take
 * started while held and stopped after 60 frames at 30 fps is 2000 ms long, and a key held
 * meanwhile turned the camera by 60 equal steps. Installed as an init script, like the gamepad
 * stub, so the studio reads this clock from its first line.
 */
export async function installFrameClock(context: BrowserContext, studioOrigin: string, fps: number): Promise<void> {
  await context.addInitScript(installFrameClockScript, { origin: studioOrigin, step: 1000 / fps });
}

export const frameClock = {
  hold: (frame: Frame) => frame.evaluate(() => (window as any).__testClock.hold()),
  release: (frame: Frame) => frame.evaluate(() => (window as any).__testClock.release()),
  /** Lets `frames` animation frames pass, each one step long, and waits until they have. */
  async advance(frame: Frame, frames: number, timeoutMs: number): Promise<void> {
    await frame.evaluate((n) => (window as any).__testClock.advance(n), frames);
    await frame.waitForFunction(() => (window as any).__testClock.pending === 0, undefined, { timeout: timeoutMs });
  },
};
