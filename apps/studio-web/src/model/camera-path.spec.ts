import { CameraPathRecorder, type CameraPathPose, type TakeFacts } from './camera-path';
import { frameFormat } from './lens';

const pose = (overrides: Partial<CameraPathPose> = {}): CameraPathPose => ({
  position: { x: 1.234567, y: 2, z: -3.00004 },
  quaternion: { x: 0, y: 0.3826834324, z: 0, w: 0.9238795325 },
  focalLengthMm: 35.456,
  focusDistanceM: 4.12345,
  fNumber: 2.8,
  rollDeg: 1.234,
  ...overrides,
});

const TAKE: TakeFacts = { sceneVersion: 3, recordedAt: '2026-01-02T03:04:05.678Z', durationMs: 2000, mimeType: 'video/webm;codecs=vp9' };

describe(CameraPathRecorder.name, () => {
  let sut: CameraPathRecorder;

  beforeEach(() => {
    sut = new CameraPathRecorder();
  });

  it('times samples in milliseconds from the start of the take, to a tenth', () => {
    sut.start(1000);
    sut.sample(1000, pose());
    sut.sample(1016.6666, pose());
    sut.sample(1033.3333, pose());
    expect(sut.finish(TAKE).samples.map((s) => s.t)).toEqual([0, 16.7, 33.3]);
  });

  it('never gives a sample a negative time (a frame stamped just before the start)', () => {
    sut.start(500);
    sut.sample(499.2, pose());
    expect(sut.finish(TAKE).samples[0].t).toBe(0);
  });

  it('records position, orientation and lens per sample, rounded for a compact file', () => {
    sut.start(0);
    sut.sample(10, pose());
    const [sample] = sut.finish(TAKE).samples;
    expect(sample).toEqual({
      t: 10,
      position: [1.2346, 2, -3],
      quaternion: [0, 0.382683, 0, 0.92388],
      focalLengthMm: 35.46,
      focusDistanceM: 4.123,
      fNumber: 2.8,
      rollDeg: 1.23,
      // The 16:9 frame's vertical angle for 35.456 mm on a 36 mm wide sensor.
      verticalFovDeg: 31.875,
    });
  });

  it('numbers markers and places them at the last sampled pose', () => {
    sut.start(100);
    sut.sample(110, pose({ position: { x: 5, y: 6, z: 7 } }));
    expect(sut.marker(150)).toBe('Marker 1');
    sut.sample(160, pose({ position: { x: 8, y: 9, z: 10 } }));
    expect(sut.marker(175.55)).toBe('Marker 2');
    expect(sut.markerCount).toBe(2);
    const { markers } = sut.finish(TAKE);
    expect(markers).toEqual([
      { t: 50, label: 'Marker 1', position: [5, 6, 7], quaternion: [0, 0.382683, 0, 0.92388] },
      { t: 75.6, label: 'Marker 2', position: [8, 9, 10], quaternion: [0, 0.382683, 0, 0.92388] },
    ]);
  });

  it('places a marker dropped before any frame at the origin, looking down −Z', () => {
    sut.start(0);
    sut.marker(5);
    expect(sut.finish(TAKE).markers[0]).toMatchObject({ position: [0, 0, 0], quaternion: [0, 0, 0, 1] });
  });

  it('writes the camera path document the download and the parent receive', () => {
    sut.start(0);
    sut.sample(0, pose());
    sut.marker(1);
    const path = sut.finish(TAKE);
    expect(path).toMatchObject({
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 3,
      recordedAt: '2026-01-02T03:04:05.678Z',
      durationMs: 2000,
      video: { mimeType: 'video/webm;codecs=vp9', aspect: 1.777778 },
      coordinateSystem: 'gltf',
      sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
    });
    expect(path.samples).toHaveLength(1);
    expect(path.markers).toHaveLength(1);
    // The file is JSON: nothing in it may be lost (undefined) or turn into null (NaN) on the way.
    expect(JSON.parse(JSON.stringify(path))).toEqual(path);
  });

  it("records the take's sensor, aspect and fields of view when the frame is not the default", () => {
    sut.start(0, frameFormat('super-35', '2.39:1'));
    sut.sample(0, pose());
    const path = sut.finish(TAKE);
    expect(path.video.aspect).toBe(2.39);
    expect(path.sensor).toEqual({ widthMm: 24.89, heightMm: 18.66, filmGaugeMm: 24.89 });
    const gateHeight = 24.89 / 2.39;
    expect(path.samples[0].verticalFovDeg).toBeCloseTo((2 * Math.atan(gateHeight / 2 / path.samples[0].focalLengthMm) * 180) / Math.PI, 2);
  });

  it('starts empty again after a take, and on a new start', () => {
    sut.start(0);
    sut.sample(1, pose());
    sut.marker(2);
    sut.finish(TAKE);
    expect(sut.markerCount).toBe(0);
    expect(sut.finish(TAKE)).toMatchObject({ samples: [], markers: [] });

    sut.sample(3, pose());
    sut.marker(4);
    sut.start(10);
    expect(sut.markerCount).toBe(0);
    sut.marker(20);
    expect(sut.finish(TAKE).markers).toEqual([{ t: 10, label: 'Marker 1', position: [0, 0, 0], quaternion: [0, 0, 0, 1] }]);
  });

  it('does not change a finished document when the next take is recorded', () => {
    sut.start(0);
    sut.sample(1, pose());
    const first = sut.finish(TAKE);
    sut.start(100);
    sut.sample(101, pose());
    sut.sample(102, pose());
    expect(first.samples).toHaveLength(1);
  });
});
