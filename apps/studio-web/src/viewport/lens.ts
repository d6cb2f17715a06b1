/**
 * Lens maths for a full-frame (36×24 mm) camera whose frame is the viewport.
 *
 * The studio's frame is always 16:9 (like the video it records), cut from the full width of
 * the sensor: three.js's `filmGauge = 36` with `setFocalLength` does exactly that, so the
 * horizontal field of view of a preset matches what its focal length means on a 36 mm wide
 * sensor (the generator's presets assume a 36×24 frame; 16:9 crops top and bottom).
 */
export const SENSOR_WIDTH_MM = 36;
export const SENSOR_HEIGHT_MM = 24;
export const FRAME_ASPECT = 16 / 9;

export const FOCAL_MIN_MM = 12;
export const FOCAL_MAX_MM = 200;
export const FOCUS_MIN_M = 0.3;
export const FOCUS_MAX_M = 1000;
export const F_STOPS = [1.4, 2, 2.8, 4, 5.6, 8, 11, 16, 22] as const;
export const ROLL_LIMIT_DEG = 45;

export function clampFocal(mm: number): number {
  return Math.min(FOCAL_MAX_MM, Math.max(FOCAL_MIN_MM, mm));
}

export function clampFocus(m: number): number {
  return Math.min(FOCUS_MAX_M, Math.max(FOCUS_MIN_M, m));
}

/** Film size used for a viewport aspect (three.js's convention with filmGauge = 36). */
export function filmSize(aspect: number): { width: number; height: number } {
  return { width: SENSOR_WIDTH_MM * Math.min(aspect, 1), height: SENSOR_WIDTH_MM / Math.max(aspect, 1) };
}

export function fieldOfView(focalMm: number, aspect: number): { horizontalDeg: number; verticalDeg: number } {
  const film = filmSize(aspect);
  const deg = (rad: number) => (rad * 180) / Math.PI;
  return {
    horizontalDeg: deg(2 * Math.atan(film.width / 2 / focalMm)),
    verticalDeg: deg(2 * Math.atan(film.height / 2 / focalMm)),
  };
}

/**
 * Circle of confusion, as a fraction of the frame width, for a point `distanceM` away when
 * focused at `focusM` — the thin-lens formula c = f²·|D − S| / (N·D·(S − f)). The depth of
 * field shader evaluates the same expression per pixel; this is its CPU twin for the UI.
 */
export function circleOfConfusion(focalMm: number, fNumber: number, focusM: number, distanceM: number, aspect: number): number {
  const f = focalMm / 1000;
  const s = Math.max(focusM, f * 1.01);
  const c = (f * f * Math.abs(distanceM - s)) / (fNumber * distanceM * (s - f));
  return c / (filmSize(aspect).width / 1000);
}

/** A log-scale slider position (0..1000) ↔ a focus distance, so near focus gets fine control. */
export function focusToSlider(m: number): number {
  return Math.round((1000 * Math.log(clampFocus(m) / FOCUS_MIN_M)) / Math.log(FOCUS_MAX_M / FOCUS_MIN_M));
}

export function sliderToFocus(position: number): number {
  return clampFocus(FOCUS_MIN_M * (FOCUS_MAX_M / FOCUS_MIN_M) ** (position / 1000));
}

export function formatDistance(m: number): string {
  if (m < 1) return `${Math.round(m * 100)} cm`;
  if (m < 10) return `${m.toFixed(1)} m`;
  return `${Math.round(m)} m`;
}

export function formatFNumber(n: number): string {
  return `f/${Number.isInteger(n) ? n.toFixed(0) : n.toFixed(1)}`;
}

/** The viewport's corner readout: focal length and field of view, then aperture and focus while depth of field is on. */
export function formatLensReadout(focalMm: number, fNumber: number, focusM: number, depthOfField: boolean): string {
  const fov = fieldOfView(focalMm, FRAME_ASPECT);
  const dof = depthOfField ? ` · ${formatFNumber(fNumber)} · ${formatDistance(focusM)}` : '';
  return `${Math.round(focalMm)} mm · ${fov.horizontalDeg.toFixed(1)}°×${fov.verticalDeg.toFixed(1)}°${dof}`;
}

/**
 * Depth of field on splats, in Spark's terms: the full angle the aperture (diameter f/N) subtends
 * from the focal plane. Spark blurs each splat by f_px·tan(θ/2)·|z − s|/z pixels, which with this
 * angle is half the thin-lens circle of confusion above (exactly so when s ≫ f): the same lens
 * settings blur splats as much as the mesh pass blurs meshes.
 */
export function splatApertureAngle(focalMm: number, fNumber: number, focusM: number): number {
  const aperture = focalMm / 1000 / fNumber;
  return 2 * Math.atan(aperture / 2 / clampFocus(focusM));
}
