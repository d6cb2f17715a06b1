import { exportInput, yaw } from './camera-export.fixtures';
import { writeUsdCamera } from './usd-camera.writer';

describe(writeUsdCamera.name, () => {
  const sut = writeUsdCamera;

  it('writes a stage in metres, +Y up, one time code per frame at the frame rate', () => {
    const usda = sut(exportInput());
    expect(usda.startsWith('#usda 1.0\n')).toBe(true);
    expect(usda).toContain('metersPerUnit = 1\n');
    expect(usda).toContain('upAxis = "Y"\n');
    expect(usda).toContain('timeCodesPerSecond = 24\n');
    expect(usda).toContain('startTimeCode = 0\n');
    expect(usda).toContain('endTimeCode = 2\n');
    expect(usda).toContain('defaultPrim = "Camera"');
    expect(usda).toContain('def Camera "Camera"');
  });

  it('writes focal length and apertures in tenths of a metre, distances in metres', () => {
    const usda = sut(exportInput());
    // 36 × 20.25 mm gate: 0.36 and 0.2025 tenths of a metre; 35, 50, 85 mm lenses.
    expect(usda).toContain('float horizontalAperture = 0.36\n');
    expect(usda).toContain('float verticalAperture = 0.2025\n');
    expect(usda).toMatch(/float focalLength\.timeSamples = \{\n\s+0: 0\.35,\n\s+1: 0\.5,\n\s+2: 0\.85,\n\s+\}/);
    expect(usda).toMatch(/float focusDistance\.timeSamples = \{\n\s+0: 4,\n\s+1: 3,\n\s+2: 2,\n\s+\}/);
    expect(usda).toMatch(/float fStop\.timeSamples = \{\n\s+0: 2\.8,\n\s+1: 2\.8,\n\s+2: 4,\n\s+\}/);
    expect(usda).toContain('float2 clippingRange = (0.05, 1000)');
  });

  it('writes the camera-to-world matrix with its axes as rows and the position last', () => {
    const usda = sut(exportInput({ frames: [{ ...exportInput().frames[0], quaternion: yaw(90), position: [1, 2, 3] }] }));
    // A quarter turn left: the camera's +X points to world −Z, its +Z (behind it) to world +X.
    expect(usda).toContain('0: ( (0, 0, -1, 0), (0, 1, 0, 0), (1, 0, 0, 0), (1, 2, 3, 1) ),');
  });

  it('refuses a move without frames', () => {
    expect(() => sut(exportInput({ frames: [] }))).toThrow('at least one frame');
  });
});
