import type { MovePose } from './camera-move';
import {
  CAMERA_PATH_FORMAT,
  CAMERA_PATH_FORMAT_VERSION,
  EASINGS,
  type CameraPathDocument,
  type CameraPathKeyframe,
  type CameraPathMarker,
  type CameraPathSample,
  type KeyframeEasing,
} from './camera-path';
export const MAX_DURATION_MS = 3_600_000;
/** docs/camera-paths.md: a document holds at most this many keyframes. */
export const MAX_KEYFRAMES = 1000;
/** Bigger files are refused before they are read: an hour of 60 fps samples is about 45 MB. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export type ParsedCameraPath = { ok: true; document: CameraPathDocument } | { ok: false; reason: string };

/**
 * Reads a camera-path file (docs/camera-paths.md) as the studio imports it. Refusals say why,
 * naming the field as the studio API does (`keyframes[2].quaternion`). The document returned
 * holds only the format's fields (anything else in the file is dropped), keyframes and samples
 * copied as they were written.
 */
export function parseCameraPathFile(text: string): ParsedCameraPath {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('The file is not JSON.');
  }
  try {
    return { ok: true, document: readDocument(value) };
  } catch (e) {
    if (e instanceof Refusal) return refuse(e.message);
    throw e;
  }
}

class Refusal extends Error {}

function refuse(reason: string): ParsedCameraPath {
  return { ok: false, reason };
}

function fail(reason: string): never {
  throw new Refusal(reason);
}

type Json = Record<string, unknown>;

function readDocument(value: unknown): CameraPathDocument {
  if (!isObject(value)) fail('The file is not a camera path: it holds no JSON object.');
  if (value.format !== CAMERA_PATH_FORMAT) {
    fail(`The file is not a Scene Studio camera path (its format is ${describe(value.format)}, not "${CAMERA_PATH_FORMAT}").`);
  }
  if (value.formatVersion !== CAMERA_PATH_FORMAT_VERSION) {
    fail(`Camera path format version ${describe(value.formatVersion)} is not one this studio reads (it reads version 1).`);
  }
  const durationMs = number(value, 'durationMs', 0, MAX_DURATION_MS);
  const sceneVersion = value.sceneVersion === null ? null : integer(value, 'sceneVersion', 1);
  if (typeof value.recordedAt !== 'string' || Number.isNaN(Date.parse(value.recordedAt))) fail('recordedAt is not an ISO 8601 time.');
  if (value.coordinateSystem !== 'gltf') fail('coordinateSystem must be "gltf".');
  const video = object(value, 'video');
  if (typeof video.mimeType !== 'string') fail('video.mimeType is not a string.');
  const sensor = object(value, 'sensor');

  const samples = array(value, 'samples').map((s, i) => readSample(s, `samples[${i}]`));
  samples.forEach((s, i) => {
    if (i > 0 && s.t < samples[i - 1].t) fail(`samples[${i}].t comes before samples[${i - 1}].t: samples must be in ascending time.`);
    if (s.t > durationMs) fail(`samples[${i}].t is after durationMs.`);
  });
  const markers = array(value, 'markers').map((m, i) => readMarker(m, `markers[${i}]`));

  let keyframes: CameraPathKeyframe[] | undefined;
  if (value.keyframes !== undefined) {
    const list = array(value, 'keyframes');
    if (list.length > MAX_KEYFRAMES) fail(`The file has ${list.length} keyframes; a camera path holds at most ${MAX_KEYFRAMES}.`);
    keyframes = list.map((k, i) => readKeyframe(k, `keyframes[${i}]`));
    keyframes.forEach((k, i) => {
      if (i > 0 && !(k.t > keyframes![i - 1].t)) {
        fail(`keyframes[${i}].t is not after keyframes[${i - 1}].t: keyframes must be in ascending, distinct time.`);
      }
      if (k.t > durationMs) fail(`keyframes[${i}].t is after durationMs.`);
    });
  }
  const smoothing = value.smoothing === undefined ? undefined : number(value, 'smoothing', 0, 1);
  if ((keyframes?.length ?? 0) === 0 && samples.length === 0)
    fail('The camera path has neither keyframes nor samples: there is no move in it.');

  const document: CameraPathDocument = {
    format: CAMERA_PATH_FORMAT,
    formatVersion: CAMERA_PATH_FORMAT_VERSION,
    sceneVersion,
    recordedAt: value.recordedAt,
    durationMs,
    video: { mimeType: video.mimeType, aspect: number(video, 'aspect', 0.01, 100, 'video.') },
    coordinateSystem: 'gltf',
    sensor: {
      widthMm: number(sensor, 'widthMm', 0.1, 1000, 'sensor.'),
      heightMm: number(sensor, 'heightMm', 0.1, 1000, 'sensor.'),
      filmGaugeMm: number(sensor, 'filmGaugeMm', 0.1, 1000, 'sensor.'),
    },
    samples,
    markers,
  };
  if (keyframes) document.keyframes = keyframes;
  if (smoothing !== undefined) document.smoothing = smoothing;
  return document;
}

function readPose(value: Json, at: string): MovePose {
  return {
    position: position(value, at),
    quaternion: quaternion(value, at),
    focalLengthMm: number(value, 'focalLengthMm', 12, 200, `${at}.`),
    focusDistanceM: number(value, 'focusDistanceM', 0.1, 10_000, `${at}.`),
    fNumber: number(value, 'fNumber', 1, 32, `${at}.`),
    rollDeg: number(value, 'rollDeg', -180, 180, `${at}.`),
  };
}

function readSample(value: unknown, at: string): CameraPathSample {
  if (!isObject(value)) fail(`${at} is not an object.`);
  return {
    t: number(value, 't', 0, MAX_DURATION_MS, `${at}.`),
    ...readPose(value, at),
    verticalFovDeg: number(value, 'verticalFovDeg', 0.01, 179.99, `${at}.`),
  };
}

function readKeyframe(value: unknown, at: string): CameraPathKeyframe {
  if (!isObject(value)) fail(`${at} is not an object.`);
  const easing = value.easing;
  if (typeof easing !== 'string' || !(EASINGS as readonly string[]).includes(easing)) {
    fail(`${at}.easing must be one of ${EASINGS.map((e) => `"${e}"`).join(', ')}.`);
  }
  return { t: number(value, 't', 0, MAX_DURATION_MS, `${at}.`), ...readPose(value, at), easing: easing as KeyframeEasing };
}

function readMarker(value: unknown, at: string): CameraPathMarker {
  if (!isObject(value)) fail(`${at} is not an object.`);
  if (typeof value.label !== 'string') fail(`${at}.label is not a string.`);
  return {
    t: number(value, 't', 0, MAX_DURATION_MS, `${at}.`),
    label: value.label,
    position: position(value, at),
    quaternion: quaternion(value, at),
  };
}

function position(value: Json, at: string): [number, number, number] {
  const p = value.position;
  if (!Array.isArray(p) || p.length !== 3 || !p.every((x) => isFiniteNumber(x) && Math.abs(x) <= 100_000)) {
    fail(`${at}.position must be three finite numbers within ±100 000 m.`);
  }
  return [p[0], p[1], p[2]] as [number, number, number];
}

function quaternion(value: Json, at: string): [number, number, number, number] {
  const q = value.quaternion;
  if (!Array.isArray(q) || q.length !== 4 || !q.every(isFiniteNumber)) fail(`${at}.quaternion must be four finite numbers.`);
  const [x, y, z, w] = q;
  if (Math.abs(Math.hypot(x, y, z, w) - 1) > 1e-3) fail(`${at}.quaternion is not of unit length.`);
  return [x, y, z, w];
}

function number(value: Json, key: string, min: number, max: number, prefix = ''): number {
  const n = value[key];
  if (!isFiniteNumber(n)) fail(`${prefix}${key} is not a number.`);
  if (n < min || n > max) fail(`${prefix}${key} is ${n}, outside ${min} to ${max}.`);
  return n;
}

function integer(value: Json, key: string, min: number): number {
  const n = value[key];
  if (!Number.isInteger(n) || (n as number) < min) fail(`${key} must be a whole number from ${min}, or null.`);
  return n as number;
}

function object(value: Json, key: string): Json {
  const o = value[key];
  if (!isObject(o)) fail(`${key} is not an object.`);
  return o;
}

function array(value: Json, key: string): unknown[] {
  const a = value[key];
  if (!Array.isArray(a)) fail(`${key} is not a list.`);
  return a;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function describe(value: unknown): string {
  // JSON.stringify gives undefined for undefined (a missing field) and functions, never in parsed JSON.
  const text = JSON.stringify(value) ?? 'missing';
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
