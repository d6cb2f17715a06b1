/**
 * Lens maths for a cinema camera: a sensor (full frame, Super 35), a frame aspect cut from it,
 * and a focal length. The frame ("gate") is the largest rectangle of the chosen aspect that fits
 * the sensor, centred, as on a real camera set to a crop: 16:9 on full frame uses the full 36 mm
 * width (36×20.25), 1:1 the full 24 mm height (24×24). Fields of view follow from the gate.
 *
 * The rig holds the current frame (`CameraRig.frame`); everything else reads it from there.
 */
export type SensorId = 'full-frame' | 'super-35';
export type AspectId = '16:9' | '2.39:1' | '1:1' | '9:16';

export interface SensorFormat {
  id: SensorId;
  name: string;
  widthMm: number;
  heightMm: number;
}

export interface AspectFormat {
  id: AspectId;
  /** Width over height. */
  ratio: number;
}

export interface FrameFormat {
  sensor: SensorFormat;
  aspect: AspectFormat;
  /** The gate: the part of the sensor the frame uses, in millimetres. */
  film: { width: number; height: number };
}

/**
 * Super 35 is the 4-perf Super 35 full aperture, 24.89 × 18.66 mm: the film gate the name comes
 * from. Digital "Super 35" sensors differ from it (and from each other) by a few millimetres, so
 * the film gate is the one reference every cinematographer can check a focal length against.
 */
export const SENSORS: readonly SensorFormat[] = [
  { id: 'full-frame', name: 'Full frame', widthMm: 36, heightMm: 24 },
  { id: 'super-35', name: 'Super 35', widthMm: 24.89, heightMm: 18.66 },
];

export const ASPECTS: readonly AspectFormat[] = [
  { id: '16:9', ratio: 16 / 9 },
  { id: '2.39:1', ratio: 2.39 },
  { id: '1:1', ratio: 1 },
  { id: '9:16', ratio: 9 / 16 },
];

/** The prime stops offered as buttons (a cinema prime set, plus 14 and 200 at the ends). */
export const PRIME_FOCALS_MM = [14, 24, 35, 50, 85, 135, 200] as const;

const FRAMES = new Map<string, FrameFormat>();

/**
 * The frame of a sensor and an aspect: one object per pair, so "is this the same frame" is `===`
 * wherever a frame is compared (the viewport's layout, the render's sizes).
 */
export function frameFormat(sensorId: SensorId, aspectId: AspectId): FrameFormat {
  const sensor = SENSORS.find((s) => s.id === sensorId) ?? SENSORS[0];
  const aspect = ASPECTS.find((a) => a.id === aspectId) ?? ASPECTS[0];
  const key = `${sensor.id} ${aspect.id}`;
  let frame = FRAMES.get(key);
  if (!frame) {
    frame = { sensor, aspect, film: gateSize(sensor, aspect.ratio) };
    FRAMES.set(key, frame);
  }
  return frame;
}

/**
 * The frame a camera-path document was made with (its `sensor` and `video.aspect`), for putting
 * the rig back in it when a path is loaded; null when the document's frame is not one of ours.
 */
export function frameOfPath(path: { sensor: { widthMm: number; heightMm: number }; video: { aspect: number } }): FrameFormat | null {
  const sensor = SENSORS.find(
    (s) => Math.abs(s.widthMm - path.sensor.widthMm) < 0.01 && Math.abs(s.heightMm - path.sensor.heightMm) < 0.01,
  );
  const aspect = ASPECTS.find((a) => Math.abs(a.ratio - path.video.aspect) < 1e-4);
  return sensor && aspect ? frameFormat(sensor.id, aspect.id) : null;
}

/** Full frame, 16:9: the studio's frame before anyone changes it. */
export const DEFAULT_FRAME: FrameFormat = frameFormat('full-frame', '16:9');

/** The largest rectangle of `ratio` (width / height) inside the sensor. */
export function gateSize(sensor: Pick<SensorFormat, 'widthMm' | 'heightMm'>, ratio: number): { width: number; height: number } {
  const width = Math.min(sensor.widthMm, sensor.heightMm * ratio);
  return { width, height: width / ratio };
}

/**
 * The film gauge three.js needs for a frame: with `filmGauge = g`, three takes the film as g wide
 * for landscape frames and g high for portrait ones, so the gate's longer side is the gauge.
 */
export function filmGauge(frame: FrameFormat): number {
  return Math.max(frame.film.width, frame.film.height);
}

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

export function fieldOfView(focalMm: number, frame: FrameFormat): { horizontalDeg: number; verticalDeg: number } {
  const film = frame.film;
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
export function circleOfConfusion(focalMm: number, fNumber: number, focusM: number, distanceM: number, frame: FrameFormat): number {
  const f = focalMm / 1000;
  const s = Math.max(focusM, f * 1.01);
  const c = (f * f * Math.abs(distanceM - s)) / (fNumber * distanceM * (s - f));
  return c / (frame.film.width / 1000);
}

/** A log-scale slider position (0..1000) ↔ a focus distance, so near focus gets fine control. */
export function focusToSlider(m: number): number {
  return Math.round((1000 * Math.log(clampFocus(m) / FOCUS_MIN_M)) / Math.log(FOCUS_MAX_M / FOCUS_MIN_M));
}

export function sliderToFocus(position: number): number {
  return clampFocus(FOCUS_MIN_M * (FOCUS_MAX_M / FOCUS_MIN_M) ** (position / 1000));
}

export type DistanceUnit = 'm' | 'ft';

const METRES_PER_FOOT = 0.3048;

/** Metric, or feet and inches as focus pullers mark them (whole feet from 10 ft on). */
export function formatDistance(m: number, unit: DistanceUnit = 'm'): string {
  if (unit === 'ft') {
    const inches = Math.round(m / (METRES_PER_FOOT / 12));
    if (inches >= 120) return `${Math.round(inches / 12)} ft`;
    return `${Math.floor(inches / 12)} ft ${inches % 12} in`;
  }
  if (m < 1) return `${Math.round(m * 100)} cm`;
  if (m < 10) return `${m.toFixed(1)} m`;
  return `${Math.round(m)} m`;
}

export function formatFNumber(n: number): string {
  return `f/${Number.isInteger(n) ? n.toFixed(0) : n.toFixed(1)}`;
}

export type FocalEntry = { ok: true; mm: number; clamped: boolean } | { ok: false; message: string };

/** Reads a typed focal length ("85", "85 mm", "50.5"): a number, clamped to the lens's range. */
export function parseFocalEntry(text: string): FocalEntry {
  const match = /^\s*(\d+(?:[.,]\d+)?)\s*(?:mm)?\s*$/i.exec(text);
  const value = match ? Number(match[1].replace(',', '.')) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    return { ok: false, message: `Enter a focal length in millimetres, ${FOCAL_MIN_MM} to ${FOCAL_MAX_MM}.` };
  }
  const mm = clampFocal(Math.round(value * 10) / 10);
  return { ok: true, mm, clamped: mm !== Math.round(value * 10) / 10 };
}

/** The viewport's corner readout: focal length and field of view, then aperture and focus while depth of field is on. */
export function formatLensReadout(
  focalMm: number,
  fNumber: number,
  focusM: number,
  depthOfField: boolean,
  frame: FrameFormat = DEFAULT_FRAME,
  unit: DistanceUnit = 'm',
): string {
  const fov = fieldOfView(focalMm, frame);
  const dof = depthOfField ? ` · ${formatFNumber(fNumber)} · ${formatDistance(focusM, unit)}` : '';
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
