import { outputSize } from './render-options';
import { largestStill, planStill, stillFits, stillSize, type StillRequest } from './still-options';

const request = (overrides: Partial<StillRequest> = {}): StillRequest => ({
  resolution: '2160p',
  aspect: 16 / 9,
  maxDrawingSize: 8192,
  ...overrides,
});

describe('still sizes', () => {
  it.each([
    ['1080p', 16 / 9, 1920, 1080],
    ['2160p', 16 / 9, 3840, 2160],
    ['4320p', 16 / 9, 7680, 4320],
    ['4320p', 2.39, 7680, 3214],
    ['4320p', 9 / 16, 4320, 7680],
    ['2160p', 1, 2160, 2160],
    ['4320p', 4 / 3, 5760, 4320],
  ] as const)('a %s still at aspect %d is %i × %i', (resolution, aspect, width, height) => {
    expect(stillSize(resolution, aspect)).toEqual({ width, height });
  });

  it('follows the render section rule exactly where the classes overlap', () => {
    for (const aspect of [16 / 9, 2.39, 1.85, 4 / 3, 1, 9 / 16, 4 / 5]) {
      expect(stillSize('1080p', aspect)).toEqual(outputSize('1080p', aspect));
      expect(stillSize('2160p', aspect)).toEqual(outputSize('2160p', aspect));
    }
  });
});

describe(planStill.name, () => {
  it('plans the requested class at the view aspect', () => {
    expect(planStill(request())).toEqual({ ok: true, plan: { resolution: '2160p', width: 3840, height: 2160 } });
    expect(planStill(request({ resolution: '4320p', aspect: 2.39 }))).toEqual({
      ok: true,
      plan: { resolution: '4320p', width: 7680, height: 3214 },
    });
  });

  it('refuses a still larger than the GPU can draw, naming the size', () => {
    const result = planStill(request({ resolution: '4320p', maxDrawingSize: 4096 }));
    expect(result).toEqual({ ok: false, message: expect.stringContaining('7680 × 4320') });
  });

  it('accepts a still exactly as large as the GPU can draw', () => {
    expect(planStill(request({ resolution: '4320p', maxDrawingSize: 7680 })).ok).toBe(true);
  });

  it('refuses an unknown class and an unusable aspect', () => {
    expect(planStill(request({ resolution: '720p' })).ok).toBe(false);
    expect(planStill(request({ aspect: 0 })).ok).toBe(false);
    expect(planStill(request({ aspect: Number.NaN })).ok).toBe(false);
  });
});

describe(largestStill.name, () => {
  it('offers 8K where the GPU draws 8192 px, 4K where it draws 4096, nothing below 1920', () => {
    expect(largestStill(16 / 9, 8192)).toBe('4320p');
    expect(largestStill(16 / 9, 4096)).toBe('2160p');
    expect(largestStill(16 / 9, 2048)).toBe('1080p');
    expect(largestStill(16 / 9, 1024)).toBeNull();
    // Portrait turns the box: 8K needs 7680 px of height.
    expect(stillFits('4320p', 9 / 16, 7000)).toBe(false);
  });
});
