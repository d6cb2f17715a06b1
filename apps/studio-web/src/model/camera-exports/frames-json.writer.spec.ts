import { exportInput, yaw } from './camera-export.fixtures';
import { cameraFramesDocument, writeCameraFramesJson } from './frames-json.writer';

describe(cameraFramesDocument.name, () => {
  const sut = cameraFramesDocument;
  const image = { width: 1920, height: 1080 };

  it('gives pinhole intrinsics in pixels for the image and the gate', () => {
    const doc = sut(exportInput(), 'opengl', image);
    expect(doc).toMatchObject({ format: 'scene-studio.camera-frames', formatVersion: 1, convention: 'opengl', fps: 24, image });
    // 35 mm on a 36 mm wide gate over 1920 px: 1866.6667 px; the gate's 16:9 keeps pixels square.
    expect(doc.frames[0].intrinsics).toEqual({ fx: 1866.6667, fy: 1866.6667, cx: 960, cy: 540 });
    expect(doc.frames.map((f) => f.frame)).toEqual([0, 1, 2]);
    expect(doc.frames[2].time).toBe(0.083333);
  });

  it('keeps the studio pose for OpenGL and turns the camera half a turn about its X for OpenCV', () => {
    const input = exportInput();
    const gl = sut(input, 'opengl', image).frames[2];
    const cv = sut(input, 'opencv', image).frames[2];
    expect(gl.extrinsics).toEqual({ position: [1, 1.7, 4], quaternion: yaw(90).map((c) => Number(c.toFixed(9))) });
    expect(cv.extrinsics.position).toEqual([1, 1.7, 4]);
    // yaw(90) · X(180°): the OpenCV camera's +Z (its view direction) is the OpenGL camera's −Z = world −X.
    const [x, y, z, w] = cv.extrinsics.quaternion;
    const viewDirection = [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)];
    expect(viewDirection[0]).toBeCloseTo(-1, 6);
    expect(viewDirection[1]).toBeCloseTo(0, 6);
    expect(viewDirection[2]).toBeCloseTo(0, 6);
    // And its +Y (the rotation's second column) points down.
    expect(1 - 2 * (x * x + z * z)).toBeCloseTo(-1, 6);
  });

  it('writes the document as JSON text', () => {
    expect(JSON.parse(writeCameraFramesJson(exportInput(), 'opencv', image)).convention).toBe('opencv');
  });

  it('refuses an image without a size', () => {
    expect(() => sut(exportInput(), 'opengl', { width: 0, height: 1080 })).toThrow('image size');
  });
});
