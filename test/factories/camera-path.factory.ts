/**
 * Camera path documents (docs/camera-paths.md, "The file") for tests: a take of `samples` poses,
 * an authored move of keyframes, and a view, each valid as built; overrides replace fields of the
 * document.
 */
type Doc = Record<string, unknown>;

const lens = { focalLengthMm: 35, focusDistanceM: 8, fNumber: 2.8, rollDeg: 0 };

/** A pose along a slow pan: position moving, the camera turning about +Y (a unit quaternion). */
export function pose(i: number): { position: number[]; quaternion: number[] } {
  const a = i / 500;
  return {
    position: [Math.round(Math.sin(a) * 12.3456 * 1e4) / 1e4, 1.6, Math.round((8 - a) * 1e4) / 1e4],
    quaternion: [0, Math.round(Math.sin(a / 2) * 1e6) / 1e6, 0, Math.round(Math.cos(a / 2) * 1e6) / 1e6],
  };
}

/** A document of `durationMs` with nothing in it yet: `overrides` fill it. */
export function pathDocument(durationMs: number, overrides: Doc): Doc {
  return {
    format: 'scene-studio.camera-path',
    formatVersion: 1,
    sceneVersion: 1,
    recordedAt: '2026-11-26T10:00:00.000Z',
    durationMs,
    video: { mimeType: 'video/webm;codecs=vp9', aspect: 1.777778 },
    coordinateSystem: 'gltf',
    sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
    samples: [],
    markers: [],
    ...overrides,
  };
}

/** A recorded take: a sample every 16.7 ms, as the studio's recorder writes them. */
export function takeDocument(samples = 3, overrides: Doc = {}): Doc {
  const list = Array.from({ length: samples }, (_, i) => ({ t: Math.round(i * 166.67) / 10, ...pose(i), ...lens, verticalFovDeg: 37.849 }));
  return pathDocument(Math.ceil(samples * 16.667), {
    samples: list,
    markers: samples > 1 ? [{ t: 16.7, label: 'Marker 1', ...pose(1) }] : [],
    ...overrides,
  });
}

/** An authored move: `keyframes` keyframes one second apart. */
export function moveDocument(keyframes = 3, overrides: Doc = {}): Doc {
  const list = Array.from({ length: keyframes }, (_, i) => ({ t: i * 1000, ...pose(i * 100), ...lens, easing: 'ease-in-out' }));
  return pathDocument((keyframes - 1) * 1000, { video: { mimeType: '', aspect: 1.777778 }, keyframes: list, smoothing: 0.5, ...overrides });
}

/** A view: one keyframe, no duration. */
export function viewDocument(overrides: Doc = {}): Doc {
  return pathDocument(0, {
    video: { mimeType: '', aspect: 1.777778 },
    keyframes: [{ t: 0, ...pose(0), ...lens, easing: 'linear' }],
    ...overrides,
  });
}
