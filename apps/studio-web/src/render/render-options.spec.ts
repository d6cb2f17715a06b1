import {
  MAX_RENDER_BYTES,
  estimatedBytes,
  frameCount,
  frameTimeMs,
  outputSize,
  planRender,
  videoBitrate,
  videoDurationMs,
  type RenderRequest,
} from './render-options';

const request = (overrides: Partial<RenderRequest> = {}): RenderRequest => ({
  durationMs: 2000,
  fps: 30,
  resolution: '1080p',
  container: 'mp4',
  aspect: 16 / 9,
  maxDrawingSize: 8192,
  ...overrides,
});

describe('frame timing', () => {
  it('gives a 2 s move at 30 fps exactly 60 frames, frame i taken at i / 30 s, and a 2 s video', () => {
    expect(frameCount(2000, 30)).toBe(60);
    expect(frameTimeMs(0, 30)).toBe(0);
    expect(frameTimeMs(59, 30)).toBeCloseTo(1966.667, 3);
    expect(videoDurationMs(60, 30)).toBe(2000);
  });

  it.each([
    [2000, 24, 48],
    [2000, 25, 50],
    [2000, 60, 120],
    [1000 / 3, 30, 10],
    [4000.0000001, 30, 120],
  ])('covers %s ms at %s fps with %s frames', (ms, fps, frames) => {
    expect(frameCount(ms, fps)).toBe(frames);
  });

  it('covers a move that ends between two frames with one more frame, starting before its end', () => {
    expect(frameCount(2010, 30)).toBe(61);
    expect(frameTimeMs(60, 30)).toBeLessThan(2010);
  });

  it('never gives fewer than one frame', () => {
    expect(frameCount(1, 24)).toBe(1);
  });
});

describe(outputSize.name, () => {
  it.each([
    ['720p', 16 / 9, 1280, 720],
    ['1080p', 16 / 9, 1920, 1080],
    ['2160p', 16 / 9, 3840, 2160],
    ['1080p', 2.39, 1920, 804],
    ['1080p', 1, 1080, 1080],
    ['1080p', 9 / 16, 1080, 1920],
    ['720p', 9 / 16, 720, 1280],
    ['2160p', 2.39, 3840, 1606],
  ] as const)('%s at aspect %d is %d × %d', (resolution, aspect, width, height) => {
    expect(outputSize(resolution, aspect)).toEqual({ width, height });
  });

  it('always has even sides (H.264 4:2:0) and keeps the aspect within a pixel', () => {
    for (const resolution of ['720p', '1080p', '2160p'] as const) {
      for (const aspect of [16 / 9, 2.39, 1, 9 / 16, 1.85, 4 / 3]) {
        const { width, height } = outputSize(resolution, aspect);
        expect(width % 2).toBe(0);
        expect(height % 2).toBe(0);
        expect(Math.abs(width / aspect - height)).toBeLessThanOrEqual(1.01);
      }
    }
  });
});

describe(planRender.name, () => {
  it('plans a render: size for the aspect, frames, the video length and a bitrate', () => {
    expect(planRender(request())).toEqual({
      ok: true,
      plan: {
        fps: 30,
        resolution: '1080p',
        container: expect.objectContaining({ id: 'mp4', codec: 'avc' }),
        width: 1920,
        height: 1080,
        frames: 60,
        durationMs: 2000,
        bitrate: videoBitrate(1920, 1080, 30),
      },
    });
    expect(videoBitrate(1920, 1080, 30)).toBe(9_331_200);
  });

  it.each([
    [{ fps: 29.97 }, /frame rate/],
    [{ fps: 120 }, /frame rate/],
    [{ resolution: '8k' }, /720p, 1080p or 4K/],
    [{ container: 'mov' }, /MP4 \(H\.264\) or WebM \(VP9\)/],
    [{ durationMs: 0 }, /no length/],
    [{ durationMs: Number.NaN }, /no length/],
    [{ durationMs: 3_600_001 }, /longer than an hour/],
    [{ aspect: 0 }, /aspect/],
  ])('refuses %o with a reason', (overrides, reason) => {
    const result = planRender(request(overrides as Partial<RenderRequest>));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(reason);
  });

  it("refuses a size beyond the GPU's drawing limit, naming it", () => {
    const result = planRender(request({ resolution: '2160p', maxDrawingSize: 2048 }));
    expect(result).toEqual({ ok: false, message: "This device's graphics cannot draw 3840 × 2160: choose a lower resolution." });
    expect(planRender(request({ resolution: '1080p', maxDrawingSize: 2048 })).ok).toBe(true);
  });

  it('refuses a render that would not fit in memory, and accepts the same move at a lower resolution', () => {
    // 4K at 60 fps is 74.6 Mbit/s: 2 minutes is about 1.1 GB.
    const long = request({ resolution: '2160p', fps: 60, durationMs: 120_000 });
    expect(estimatedBytes(videoBitrate(3840, 2160, 60), 120_000)).toBeGreaterThan(MAX_RENDER_BYTES);
    const result = planRender(long);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^This render would be about 1\.0 GB, more than the 1\.0 GB the studio can hold/);
    expect(planRender({ ...long, resolution: '1080p' }).ok).toBe(true);
  });
});
