import {
  FOCUS_MAX_M,
  FOCUS_MIN_M,
  FRAME_ASPECT,
  circleOfConfusion,
  clampFocal,
  clampFocus,
  fieldOfView,
  filmSize,
  focusToSlider,
  formatDistance,
  formatFNumber,
  formatLensReadout,
  sliderToFocus,
  splatApertureAngle,
} from './lens';

const radians = (deg: number) => (deg * Math.PI) / 180;

describe('lens', () => {
  describe(filmSize.name, () => {
    it('uses the full 36 mm width for landscape frames and crops the height, as three.js does with filmGauge 36', () => {
      expect(filmSize(FRAME_ASPECT)).toEqual({ width: 36, height: 20.25 });
      expect(filmSize(1)).toEqual({ width: 36, height: 36 });
    });

    it('uses the full 36 mm as the height of a portrait frame', () => {
      expect(filmSize(0.5)).toEqual({ width: 18, height: 36 });
    });
  });

  describe(fieldOfView.name, () => {
    it('gives a full-frame lens its familiar angles', () => {
      // 18 mm is half the sensor width: the horizontal view is exactly a right angle.
      expect(fieldOfView(18, FRAME_ASPECT).horizontalDeg).toBeCloseTo(90, 10);
      const normal = fieldOfView(50, FRAME_ASPECT);
      expect(normal.horizontalDeg).toBeCloseTo(39.598, 3);
      expect(normal.verticalDeg).toBeCloseTo(22.895, 3);
      expect(fieldOfView(12, FRAME_ASPECT).horizontalDeg).toBeCloseTo(112.62, 2);
      expect(fieldOfView(200, FRAME_ASPECT).horizontalDeg).toBeCloseTo(10.286, 3);
    });

    it('round-trips: the focal length recovered from either angle is the one given', () => {
      const film = filmSize(FRAME_ASPECT);
      for (const focal of [12, 24, 35, 50, 85, 135, 200]) {
        const fov = fieldOfView(focal, FRAME_ASPECT);
        expect(film.width / 2 / Math.tan(radians(fov.horizontalDeg) / 2)).toBeCloseTo(focal, 9);
        expect(film.height / 2 / Math.tan(radians(fov.verticalDeg) / 2)).toBeCloseTo(focal, 9);
      }
    });

    it('keeps the frame shape: tan of the half angles stands in the frame aspect', () => {
      const fov = fieldOfView(35, FRAME_ASPECT);
      const ratio = Math.tan(radians(fov.horizontalDeg) / 2) / Math.tan(radians(fov.verticalDeg) / 2);
      expect(ratio).toBeCloseTo(FRAME_ASPECT, 10);
    });

    it('narrows as the focal length grows', () => {
      const angles = [12, 24, 50, 100, 200].map((f) => fieldOfView(f, FRAME_ASPECT).horizontalDeg);
      expect([...angles].sort((a, b) => b - a)).toEqual(angles);
    });
  });

  describe(circleOfConfusion.name, () => {
    it('is zero at the focus distance and grows away from it on both sides', () => {
      expect(circleOfConfusion(50, 2.8, 5, 5, FRAME_ASPECT)).toBe(0);
      const near = circleOfConfusion(50, 2.8, 5, 2, FRAME_ASPECT);
      const far = circleOfConfusion(50, 2.8, 5, 50, FRAME_ASPECT);
      expect(near).toBeGreaterThan(0);
      expect(far).toBeGreaterThan(0);
      expect(circleOfConfusion(50, 2.8, 5, 1, FRAME_ASPECT)).toBeGreaterThan(near);
    });

    it('follows the thin-lens formula, as a fraction of the frame width', () => {
      // f = 0.05 m, N = 2, S = 2 m, D = 4 m: c = f²·|D − S| / (N·D·(S − f)) over 0.036 m of film.
      const expected = (0.05 * 0.05 * 2) / (2 * 4 * (2 - 0.05)) / 0.036;
      expect(circleOfConfusion(50, 2, 2, 4, FRAME_ASPECT)).toBeCloseTo(expected, 12);
    });

    it('shrinks as the aperture closes', () => {
      const wide = circleOfConfusion(50, 1.4, 3, 10, FRAME_ASPECT);
      const narrow = circleOfConfusion(50, 16, 3, 10, FRAME_ASPECT);
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
  });

  describe(splatApertureAngle.name, () => {
    it("makes Spark's per-splat blur half the thin-lens circle of confusion, so splats and meshes blur alike", () => {
      const widthPx = 1920;
      const [focal, n, focus, distance] = [50, 2.8, 5, 20];
      const theta = splatApertureAngle(focal, n, focus);
      // Spark: focal_px · tan(θ/2) · |z − s| / z, with focal_px = width_px · f / film width.
      const sparkRadiusPx = ((widthPx * focal) / 36) * Math.tan(theta / 2) * (Math.abs(distance - focus) / distance);
      const cocPx = circleOfConfusion(focal, n, focus, distance, FRAME_ASPECT) * widthPx;
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
