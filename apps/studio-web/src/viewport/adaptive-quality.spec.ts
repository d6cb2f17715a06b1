import { AdaptiveQuality, frameDelta, qualityOverrides } from './adaptive-quality';

/** Draws `count` frames `intervalMs` apart from `start`, the camera moving; returns the last time. */
function drawMoving(sut: AdaptiveQuality, start: number, count: number, intervalMs: number): number {
  let now = start;
  for (let i = 0; i < count; i++) {
    now += intervalMs;
    sut.frameDrawn(now, true);
  }
  return now;
}

describe(AdaptiveQuality.name, () => {
  it('lowers the pixel ratio step by step while slow frames come, down to the floor', () => {
    const sut = new AdaptiveQuality({ maxRatio: 2, targetFps: 30 });
    drawMoving(sut, 0, 5, 100);
    expect(sut.ratio).toBe(1.5);
    drawMoving(sut, 1000, 40, 100);
    expect(sut.ratio).toBe(0.5);
    expect(sut.fps).toBe(10);
  });

  it('keeps full quality when frames are fast enough', () => {
    const sut = new AdaptiveQuality({ maxRatio: 2, targetFps: 30 });
    drawMoving(sut, 0, 40, 1000 / 60);
    expect(sut.ratio).toBe(2);
    expect(sut.fps).toBe(60);
  });

  it('does not count frames drawn while the camera rests, or pauses, as slow', () => {
    const sut = new AdaptiveQuality({ maxRatio: 2, targetFps: 30 });
    for (let i = 1; i <= 20; i++) sut.frameDrawn(i * 200, false);
    for (let i = 1; i <= 20; i++) sut.frameDrawn(10_000 + i * 5000, true);
    expect(sut.ratio).toBe(2);
  });

  it('restores full quality once the camera has rested, and only then', () => {
    const sut = new AdaptiveQuality({ maxRatio: 1, targetFps: 30, idleMs: 300 });
    const end = drawMoving(sut, 0, 8, 100);
    expect(sut.ratio).toBeLessThan(1);
    expect(sut.restoreWhenIdle(end + 100)).toBe(false);
    expect(sut.restoreWhenIdle(end + 300)).toBe(true);
    expect(sut.ratio).toBe(1);
    expect(sut.restoreWhenIdle(end + 400)).toBe(false);
  });

  it('climbs back while moving when frames become fast', () => {
    const sut = new AdaptiveQuality({ maxRatio: 1, targetFps: 30 });
    const end = drawMoving(sut, 0, 8, 100);
    const low = sut.ratio;
    drawMoving(sut, end, 16, 5);
    expect(sut.ratio).toBeGreaterThan(low);
  });

  it('never lowers the ratio while pinned (a take, an offline render), and goes back to full when pinned', () => {
    const sut = new AdaptiveQuality({ maxRatio: 2, targetFps: 30 });
    drawMoving(sut, 0, 8, 100);
    expect(sut.ratio).toBeLessThan(2);
    const release = sut.pin();
    expect(sut.ratio).toBe(2);
    drawMoving(sut, 1000, 40, 100);
    expect(sut.ratio).toBe(2);
    release();
    release();
    expect(sut.pinned).toBe(false);
    drawMoving(sut, 10_000, 8, 100);
    expect(sut.ratio).toBeLessThan(2);
  });

  it('stays at full quality when disabled', () => {
    const sut = new AdaptiveQuality({ maxRatio: 2, targetFps: 30, enabled: false });
    drawMoving(sut, 0, 40, 200);
    expect(sut.ratio).toBe(2);
  });
});

describe(frameDelta.name, () => {
  it('is the time since the last frame in seconds, including slow frames of a software renderer', () => {
    expect(frameDelta(1100, 1000)).toBeCloseTo(0.1, 12);
    expect(frameDelta(1250, 1000)).toBeCloseTo(0.25, 12);
  });

  it('is zero on the first frame and cut after long pauses', () => {
    expect(frameDelta(5000, 0)).toBe(0);
    expect(frameDelta(60_000, 1000)).toBe(0.25);
  });
});

describe(qualityOverrides.name, () => {
  it('reads the target frame rate, the switch and the floor', () => {
    expect(qualityOverrides('{"targetFps":240,"enabled":true,"minRatio":0.5}')).toEqual({ targetFps: 240, enabled: true, minRatio: 0.5 });
    expect(qualityOverrides('{"enabled":false}')).toEqual({ enabled: false });
  });

  it('ignores nothing stored, malformed JSON and values out of range', () => {
    expect(qualityOverrides(null)).toEqual({});
    expect(qualityOverrides('{oops')).toEqual({});
    expect(qualityOverrides('42')).toEqual({});
    expect(qualityOverrides('{"targetFps":0,"minRatio":9,"enabled":"yes"}')).toEqual({});
  });
});
