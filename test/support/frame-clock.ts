import { BrowserContext, Frame } from 'playwright-core';

/**
 * A clock the test holds in its hand, for takes of an exact length: in the studio's origin,
 * `performance.now()` and the time animation-frame callbacks receive come from it. Running, it
 * follows real time. Held, it stands still (the camera rig, which moves by frame time, stands
 * still with it) until `advance(n)` lets the next n animation frames each move it by exactly
 * 1000 / fps ms. A take started while held and stopped after advancing 60 frames at 30 fps is
 * 2000 ms long, and a key held meanwhile turned the camera by 60 equal steps. Installed as an
 * init script, like the gamepad stub, so the studio reads this clock from its first line.
 */
export async function installFrameClock(context: BrowserContext, studioOrigin: string, fps: number): Promise<void> {
  await context.addInitScript(
    ({ origin, step }) => {
      if (location.origin !== origin) return;
      const realNow = performance.now.bind(performance);
      const realRaf = window.requestAnimationFrame.bind(window);
      let offset = 0;
      let held: { at: number; steps: number } | null = null;
      let budget = 0;
      let lastFrame = -1;
      const now = () => (held ? held.at + held.steps * step : realNow() + offset);
      const clock = {
        hold() {
          if (!held) held = { at: now(), steps: 0 };
        },
        advance(frames: number) {
          budget += frames;
        },
        release() {
          if (!held) return;
          offset = now() - realNow();
          held = null;
          budget = 0;
        },
        get pending() {
          return budget;
        },
        now,
      };
      Object.defineProperty(window, '__testClock', { value: clock });
      performance.now = now;
      window.requestAnimationFrame = (callback) =>
        realRaf((frameTime) => {
          // One step per animation frame, however many callbacks that frame runs.
          if (held && budget > 0 && frameTime !== lastFrame) {
            lastFrame = frameTime;
            held.steps++;
            budget--;
          }
          callback(now());
        });
    },
    { origin: studioOrigin, step: 1000 / fps },
  );
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
