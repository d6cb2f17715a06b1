import {
  FOCUS_MAX_M,
  FOCUS_MIN_M,
  DEFAULT_FRAME,
  PRIME_FOCALS_MM,
  circleOfConfusion,
  clampFocal,
  clampFocus,
  fieldOfView,
  filmGauge,
  focusToSlider,
  formatDistance,
  formatFNumber,
  formatLensReadout,
  frameFormat,
  frameOfPath,
  gateSize,
  parseFocalEntry,
  sliderToFocus,
  splatApertureAngle,
} from './lens';

const radians = (deg: number) => (deg * Math.PI) / 180;

describe('lens', () => {
  describe(gateSize.name, () => {
    it('uses the full 36 mm width of a full-frame sensor for 16:9 and 2.39:1, cropping the height', () => {
      expect(frameFormat('full-frame', '16:9').film).toEqual({ width: 36, height: 20.25 });
      const scope = frameFormat('full-frame', '2.39:1').film;
      expect(scope.width).toBe(36);
      expect(scope.height).toBeCloseTo(36 / 2.39, 12);
    });

    it('uses the full 24 mm height for square and portrait frames, cropping the width', () => {
      expect(frameFormat('full-frame', '1:1').film).toEqual({ width: 24, height: 24 });
      expect(frameFormat('full-frame', '9:16').film).toEqual({ width: 13.5, height: 24 });
    });

    it('cuts Super 35 frames from the 24.89 × 18.66 mm gate', () => {
      const s35 = frameFormat('super-35', '16:9').film;
      expect(s35.width).toBeCloseTo(24.89, 12);
      expect(s35.height).toBeCloseTo(24.89 / (16 / 9), 12);
      expect(frameFormat('super-35', '9:16').film.height).toBeCloseTo(18.66, 12);
    });

    it('gives three.js the longer side of the gate as its film gauge', () => {
      expect(filmGauge(DEFAULT_FRAME)).toBe(36);
      expect(filmGauge(frameFormat('full-frame', '9:16'))).toBe(24);
      expect(filmGauge(frameFormat('super-35', '1:1'))).toBeCloseTo(18.66, 12);
    });

    it('falls back to full frame 16:9 for unknown ids', () => {
      expect(frameFormat('imax' as never, '4:3' as never)).toEqual(DEFAULT_FRAME);
    });
  });

  describe(frameOfPath.name, () => {
    it("finds the frame a camera path's sensor and aspect describe, as the path recorder writes them", () => {
      expect(frameOfPath({ sensor: { widthMm: 24.89, heightMm: 18.66 }, video: { aspect: 2.39 } })).toEqual(
        frameFormat('super-35', '2.39:1'),
      );
      expect(frameOfPath({ sensor: { widthMm: 36, heightMm: 24 }, video: { aspect: 1.777778 } })).toEqual(DEFAULT_FRAME);
      expect(frameOfPath({ sensor: { widthMm: 36, heightMm: 24 }, video: { aspect: 0.5625 } })).toEqual(frameFormat('full-frame', '9:16'));
    });

    it('is null for a sensor or an aspect the studio does not offer', () => {
      expect(frameOfPath({ sensor: { widthMm: 23.5, heightMm: 15.6 }, video: { aspect: 16 / 9 } })).toBeNull();
      expect(frameOfPath({ sensor: { widthMm: 36, heightMm: 24 }, video: { aspect: 4 / 3 } })).toBeNull();
    });
  });

  describe(fieldOfView.name, () => {
    it('gives a full-frame lens its familiar angles', () => {
      // 18 mm is half the sensor width: the horizontal view is exactly a right angle.
      expect(fieldOfView(18, DEFAULT_FRAME).horizontalDeg).toBeCloseTo(90, 10);
      const normal = fieldOfView(50, DEFAULT_FRAME);
      expect(normal.horizontalDeg).toBeCloseTo(39.598, 3);
      expect(normal.verticalDeg).toBeCloseTo(22.895, 3);
      expect(fieldOfView(12, DEFAULT_FRAME).horizontalDeg).toBeCloseTo(112.62, 2);
      expect(fieldOfView(200, DEFAULT_FRAME).horizontalDeg).toBeCloseTo(10.286, 3);
    });

    it('round-trips: the focal length recovered from either angle is the one given', () => {
      const film = DEFAULT_FRAME.film;
      for (const focal of [12, 24, 35, 50, 85, 135, 200]) {
        const fov = fieldOfView(focal, DEFAULT_FRAME);
        expect(film.width / 2 / Math.tan(radians(fov.horizontalDeg) / 2)).toBeCloseTo(focal, 9);
        expect(film.height / 2 / Math.tan(radians(fov.verticalDeg) / 2)).toBeCloseTo(focal, 9);
      }
    });

    it('keeps the frame shape: tan of the half angles stands in the frame aspect', () => {
      const fov = fieldOfView(35, DEFAULT_FRAME);
      const ratio = Math.tan(radians(fov.horizontalDeg) / 2) / Math.tan(radians(fov.verticalDeg) / 2);
      expect(ratio).toBeCloseTo(16 / 9, 10);
    });

    it('gives every prime stop the angles of its gate, for each sensor and aspect', () => {
      for (const sensor of ['full-frame', 'super-35'] as const) {
        for (const aspect of ['16:9', '2.39:1', '1:1', '9:16'] as const) {
          const frame = frameFormat(sensor, aspect);
          for (const focal of PRIME_FOCALS_MM) {
            const fov = fieldOfView(focal, frame);
            expect(fov.horizontalDeg).toBeCloseTo((2 * Math.atan(frame.film.width / 2 / focal) * 180) / Math.PI, 10);
            expect(fov.verticalDeg).toBeCloseTo((2 * Math.atan(frame.film.height / 2 / focal) * 180) / Math.PI, 10);
          }
        }
      }
      // The crop factor: 50 mm on Super 35 sees what about 72 mm does on full frame.
      const s35 = fieldOfView(50, frameFormat('super-35', '16:9')).horizontalDeg;
      expect(fieldOfView(50 * (36 / 24.89), DEFAULT_FRAME).horizontalDeg).toBeCloseTo(s35, 10);
    });

    it('narrows as the focal length grows', () => {
      const angles = [12, 24, 50, 100, 200].map((f) => fieldOfView(f, DEFAULT_FRAME).horizontalDeg);
      expect([...angles].sort((a, b) => b - a)).toEqual(angles);
    });
  });

  describe(circleOfConfusion.name, () => {
    it('is zero at the focus distance and grows away from it on both sides', () => {
      expect(circleOfConfusion(50, 2.8, 5, 5, DEFAULT_FRAME)).toBe(0);
      const near = circleOfConfusion(50, 2.8, 5, 2, DEFAULT_FRAME);
      const far = circleOfConfusion(50, 2.8, 5, 50, DEFAULT_FRAME);
      expect(near).toBeGreaterThan(0);
      expect(far).toBeGreaterThan(0);
      expect(circleOfConfusion(50, 2.8, 5, 1, DEFAULT_FRAME)).toBeGreaterThan(near);
    });

    it('follows the thin-lens formula, as a fraction of the frame width', () => {
      // f = 0.05 m, N = 2, S = 2 m, D = 4 m: c = f²·|D − S| / (N·D·(S − f)) over 0.036 m of film.
      const expected = (0.05 * 0.05 * 2) / (2 * 4 * (2 - 0.05)) / 0.036;
      expect(circleOfConfusion(50, 2, 2, 4, DEFAULT_FRAME)).toBeCloseTo(expected, 12);
    });

    it('shrinks as the aperture closes', () => {
      const wide = circleOfConfusion(50, 1.4, 3, 10, DEFAULT_FRAME);
      const narrow = circleOfConfusion(50, 16, 3, 10, DEFAULT_FRAME);
      expect(narrow).toBeCloseTo(wide * (1.4 / 16), 12);
    });
  });

  describe('focus slider', () => {
    it('maps its ends to the nearest and farthest focus', () => {
      expect(sliderToFocus(0)).toBeCloseTo(FOCUS_MIN_M, 12);
      expect(sliderToFocus(1000)).toBeCloseTo(FOCUS_MAX_M, 9);
      expect(focusToSlider(FOCUS_MIN_M)).toBe(0);
      expect(focusToSlider(FOCUS_MAX_M)).toBe(1000);
    });

    it('is logarithmic: the middle of the slider is the geometric mean of the range', () => {
      expect(sliderToFocus(500)).toBeCloseTo(Math.sqrt(FOCUS_MIN_M * FOCUS_MAX_M), 9);
    });

    it('round-trips every slider position', () => {
      for (let position = 0; position <= 1000; position += 37) expect(focusToSlider(sliderToFocus(position))).toBe(position);
    });

    it('clamps distances outside the range', () => {
      expect(focusToSlider(0.01)).toBe(0);
      expect(focusToSlider(1e6)).toBe(1000);
    });
  });

  it('clamps focal length and focus distance to the lens limits', () => {
    expect(clampFocal(4)).toBe(12);
    expect(clampFocal(85)).toBe(85);
    expect(clampFocal(600)).toBe(200);
    expect(clampFocus(0)).toBe(0.3);
    expect(clampFocus(7.5)).toBe(7.5);
    expect(clampFocus(5000)).toBe(1000);
  });

  it('formats distances in centimetres, tenths of metres, then whole metres', () => {
    expect(formatDistance(0.45)).toBe('45 cm');
    expect(formatDistance(2.34)).toBe('2.3 m');
    expect(formatDistance(12.6)).toBe('13 m');
  });

  it('formats distances in feet and inches, then whole feet from 10 ft', () => {
    expect(formatDistance(1, 'ft')).toBe('3 ft 3 in');
    expect(formatDistance(0.3048, 'ft')).toBe('1 ft 0 in');
    expect(formatDistance(10, 'ft')).toBe('33 ft');
    expect(formatDistance(2.5, 'ft')).toBe('8 ft 2 in');
  });

  describe(parseFocalEntry.name, () => {
    it('accepts a number with or without "mm", and a decimal comma', () => {
      expect(parseFocalEntry('85')).toEqual({ ok: true, mm: 85, clamped: false });
      expect(parseFocalEntry(' 50 mm ')).toEqual({ ok: true, mm: 50, clamped: false });
      expect(parseFocalEntry('27,5')).toEqual({ ok: true, mm: 27.5, clamped: false });
    });

    it('clamps to the lens range and says so', () => {
      expect(parseFocalEntry('600')).toEqual({ ok: true, mm: 200, clamped: true });
      expect(parseFocalEntry('8')).toEqual({ ok: true, mm: 12, clamped: true });
    });

    it('refuses anything that is not a positive number', () => {
      for (const text of ['', 'abc', '-5', '0', '50mmm', '1e3']) expect(parseFocalEntry(text).ok).toBe(false);
    });
  });

  it('formats f-numbers without a needless decimal', () => {
    expect(formatFNumber(2)).toBe('f/2');
    expect(formatFNumber(2.8)).toBe('f/2.8');
    expect(formatFNumber(16)).toBe('f/16');
  });

  describe(formatLensReadout.name, () => {
    it('shows the focal length and the field of view of the frame', () => {
      expect(formatLensReadout(50, 2.8, 3, false)).toBe('50 mm · 39.6°×22.9°');
    });

    it('adds aperture and focus while depth of field is on; the angles are those of the exact focal length', () => {
      expect(formatLensReadout(35.4, 2.8, 0.5, true)).toBe('35 mm · 53.9°×31.9° · f/2.8 · 50 cm');
    });

    it("uses the frame's gate and the chosen distance unit", () => {
      expect(formatLensReadout(50, 2.8, 3, true, frameFormat('full-frame', '1:1'), 'ft')).toBe('50 mm · 27.0°×27.0° · f/2.8 · 9 ft 10 in');
    });
  });

  describe(splatApertureAngle.name, () => {
    it("makes Spark's per-splat blur half the thin-lens circle of confusion, so splats and meshes blur alike", () => {
      const widthPx = 1920;
      const [focal, n, focus, distance] = [50, 2.8, 5, 20];
      const theta = splatApertureAngle(focal, n, focus);
      // Spark: focal_px · tan(θ/2) · |z − s| / z, with focal_px = width_px · f / film width.
      const sparkRadiusPx = ((widthPx * focal) / 36) * Math.tan(theta / 2) * (Math.abs(distance - focus) / distance);
      const cocPx = circleOfConfusion(focal, n, focus, distance, DEFAULT_FRAME) * widthPx;
      expect(sparkRadiusPx / (cocPx / 2)).toBeCloseTo(1, 1);
    });

    it('opens with a wider aperture and a longer lens, and closes with distance', () => {
      expect(splatApertureAngle(50, 1.4, 5)).toBeGreaterThan(splatApertureAngle(50, 8, 5));
      expect(splatApertureAngle(200, 2.8, 5)).toBeGreaterThan(splatApertureAngle(24, 2.8, 5));
      expect(splatApertureAngle(50, 2.8, 50)).toBeLessThan(splatApertureAngle(50, 2.8, 5));
      expect(splatApertureAngle(50, 2.8, 0)).toBe(splatApertureAngle(50, 2.8, FOCUS_MIN_M));
    });
  });
});
