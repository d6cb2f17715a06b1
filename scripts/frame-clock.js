// A clock the caller holds in its hand, installed in a page as an init script — shared by the
// browser tests (test/support/frame-clock.ts) and the studio benchmark (bench/studio.js), which
// is plain JavaScript. In the page's `origin`, `performance.now()` and the time animation-frame
// callbacks receive come from it. Running, it follows real time. Held, it stands still (the
// studio's camera rig, which moves by frame time, stands still with it) until `advance(n)` lets
// the next n animation frames each move it by exactly `step` ms: a take started while held and
// stopped after 60 frames of 1000/30 ms is exactly 2000 ms long, whatever the machine's speed.
// `window.__testClock`: hold(), advance(frames), release(), pending.
'use strict';

function installFrameClockScript({ origin, step }) {
  if (location.origin !== origin) return;
  const realNow = performance.now.bind(performance);
  const realRaf = window.requestAnimationFrame.bind(window);
  let offset = 0;
  let held = null;
  let budget = 0;
  let lastFrame = -1;
  const now = () => (held ? held.at + held.steps * step : realNow() + offset);
  const clock = {
    hold() {
      if (!held) held = { at: now(), steps: 0 };
    },
    advance(frames) {
      budget += frames;
      // The frames pass whether or not the page asks for any (a studio at rest asks for none).
      pump();
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
  };
  const tickClock = (frameTime) => {
    // One step per animation frame, however many callbacks that frame runs.
    if (held && budget > 0 && frameTime !== lastFrame) {
      lastFrame = frameTime;
      held.steps++;
      budget--;
    }
  };
  let pumping = false;
  function pump() {
    if (pumping) return;
    pumping = true;
    realRaf(function step(frameTime) {
      tickClock(frameTime);
      if (held && budget > 0) realRaf(step);
      else pumping = false;
    });
  }
  Object.defineProperty(window, '__testClock', { value: clock });
  performance.now = now;
  window.requestAnimationFrame = (callback) =>
    realRaf((frameTime) => {
      tickClock(frameTime);
      callback(now());
    });
}

module.exports = { installFrameClockScript };
