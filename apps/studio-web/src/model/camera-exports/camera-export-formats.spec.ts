import { exportInput } from './camera-export.fixtures';
import { CAMERA_EXPORT_FORMATS, cameraExportFile } from './camera-export-formats';

describe(cameraExportFile.name, () => {
  const sut = cameraExportFile;
  const options = { baseName: 'timeline-camera-24fps', image: { width: 1920, height: 1080 } };

  const starts = { usd: '#usda 1.0', gltf: 'glTF', 'json-opengl': '{', 'json-opencv': '{', 'nuke-chan': '0\t0\t1.6\t5\t' };

  it.each(CAMERA_EXPORT_FORMATS.map((f) => [f.id, f.suffix, f.mimeType]))(
    "%s: named %s, typed %s, its writer's bytes",
    (id, suffix, mimeType) => {
      const file = sut(id, exportInput(), options);
      expect(file).toMatchObject({ format: id, fileName: `timeline-camera-24fps${suffix}`, mimeType });
      expect(new TextDecoder().decode(file.bytes.subarray(0, starts[id].length))).toBe(starts[id]);
    },
  );

  it('writes each convention of the per-frame JSON', () => {
    const cv = JSON.parse(new TextDecoder().decode(sut('json-opencv', exportInput(), options).bytes));
    const gl = JSON.parse(new TextDecoder().decode(sut('json-opengl', exportInput(), options).bytes));
    expect([cv.convention, gl.convention]).toEqual(['opencv', 'opengl']);
  });
});
