import { exportInput } from './camera-export.fixtures';
import { writeGltfCamera } from './gltf-camera.writer';

/** The GLB's JSON and BIN chunks, read back as a reader would. */
function readGlb(bytes: Uint8Array): { json: any; bin: DataView; length: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(view.getUint32(0, true)).toBe(0x46546c67);
  expect(view.getUint32(4, true)).toBe(2);
  const jsonLength = view.getUint32(12, true);
  expect(view.getUint32(16, true)).toBe(0x4e4f534a);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const binAt = 20 + jsonLength;
  expect(view.getUint32(binAt + 4, true)).toBe(0x004e4942);
  const binLength = view.getUint32(binAt, true);
  return { json, bin: new DataView(bytes.buffer, bytes.byteOffset + binAt + 8, binLength), length: view.getUint32(8, true) };
}

function floats(glb: ReturnType<typeof readGlb>, accessor: number): number[] {
  const a = glb.json.accessors[accessor];
  const v = glb.json.bufferViews[a.bufferView];
  const size = { SCALAR: 1, VEC3: 3, VEC4: 4 }[a.type as 'SCALAR'];
  return Array.from({ length: a.count * size }, (_, i) => glb.bin.getFloat32(v.byteOffset + i * 4, true));
}

describe(writeGltfCamera.name, () => {
  const sut = writeGltfCamera;

  it('writes a GLB whose chunks are 4-byte aligned and whose length is the file length', () => {
    const bytes = sut(exportInput());
    const glb = readGlb(bytes);
    expect(glb.length).toBe(bytes.byteLength);
    expect(bytes.byteLength % 4).toBe(0);
    expect(glb.json.asset.version).toBe('2.0');
  });

  it('animates a camera node: times in seconds, positions, rotations and the field of view per frame', () => {
    const input = exportInput();
    const glb = readGlb(sut(input));
    const { animations, nodes, cameras } = glb.json;
    expect(nodes[0]).toMatchObject({ camera: 0, translation: [0, 1.6, 5], rotation: [0, 0, 0, 1] });
    expect(cameras[0].perspective.yfov).toBeCloseTo(2 * Math.atan(20.25 / 2 / 35), 10);
    expect(cameras[0].perspective).toMatchObject({ znear: 0.05, zfar: 1000, aspectRatio: 36 / 20.25 });
    const channels = animations[0].channels as { sampler: number; target: any }[];
    const byPath = (path: string) => animations[0].samplers[channels.find((c) => c.target.path === path)!.sampler];
    expect(floats(glb, byPath('translation').input)).toEqual([0, 1 / 24, 2 / 24].map(Math.fround));
    expect(floats(glb, byPath('translation').output)).toEqual([0, 1.6, 5, 0.5, 1.6, 4.5, 1, 1.7, 4].map(Math.fround));
    const rotations = floats(glb, byPath('rotation').output);
    expect(rotations.slice(8)).toEqual([0, Math.SQRT1_2, 0, Math.SQRT1_2].map(Math.fround));
    const pointer = channels.find((c) => c.target.path === 'pointer')!;
    expect(pointer.target.extensions.KHR_animation_pointer.pointer).toBe('/cameras/0/perspective/yfov');
    expect(floats(glb, animations[0].samplers[pointer.sampler].output)[2]).toBeCloseTo(2 * Math.atan(20.25 / 2 / 85), 6);
    // Used, not required: a reader without the extension still opens the file.
    expect(glb.json.extensionsUsed).toEqual(['KHR_animation_pointer']);
    expect(glb.json.extensionsRequired).toBeUndefined();
    expect(glb.json.accessors[byPath('rotation').input]).toMatchObject({ min: [0], max: [Math.fround(2 / 24)] });
  });

  it('keeps consecutive rotations on one side, so a reader interpolates the short way', () => {
    const input = exportInput();
    const flipped = input.frames.map((f, i) => (i === 1 ? { ...f, quaternion: f.quaternion.map((c) => -c) as typeof f.quaternion } : f));
    const glb = readGlb(sut({ ...input, frames: flipped }));
    const rotations = floats(glb, glb.json.animations[0].samplers[1].output);
    expect(rotations[5]).toBeGreaterThan(0);
    expect(rotations[7]).toBeGreaterThan(0);
  });
});
