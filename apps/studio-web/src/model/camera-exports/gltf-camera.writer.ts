import { assertExportable, continuousQuaternions, verticalFovRad, type CameraExportInput } from './camera-export.types';

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"
const FLOAT = 5126;

/**
 * The move as binary glTF 2.0 (.glb): one node holding a perspective camera, animated by LINEAR
 * samplers at every frame (input: seconds, frame index / fps) for translation and rotation, and
 * for the vertical field of view through KHR_animation_pointer (`/cameras/0/perspective/yfov`).
 * That extension is listed as used, not required: a reader without it keeps the first frame's
 * field of view and still plays the move. glTF's axes are the studio's (metres, +Y up; a camera
 * looks down its local −Z), so positions and orientations go in unchanged.
 *
 * Written by hand (a JSON chunk and a BIN chunk) rather than with @gltf-transform/core: the
 * camera and its three channels are a few dozen lines, and the studio's bundle stays smaller.
 */
export function writeGltfCamera(input: CameraExportInput): Uint8Array<ArrayBuffer> {
  assertExportable(input);
  const { frames, sensor, clipping } = input;
  const n = frames.length;
  const times = frames.map((f) => f.time);
  const translations = frames.flatMap((f) => f.position);
  const rotations = continuousQuaternions(frames.map((f) => f.quaternion)).flat();
  const yfovs = frames.map((f) => verticalFovRad(f.focalLengthMm, sensor));
  // Every view is a run of float32s; each starts 4-byte aligned as glTF requires.
  const views = [times, translations, rotations, yfovs];
  const bin = new Float32Array(views.reduce((sum, v) => sum + v.length, 0));
  const bufferViews: { buffer: 0; byteOffset: number; byteLength: number }[] = [];
  let offset = 0;
  for (const view of views) {
    bin.set(view, offset);
    bufferViews.push({ buffer: 0, byteOffset: offset * 4, byteLength: view.length * 4 });
    offset += view.length;
  }
  const first = frames[0];
  const f32 = (v: number) => Math.fround(v);
  const json = {
    asset: { version: '2.0', generator: 'Scene Studio camera export' },
    extensionsUsed: ['KHR_animation_pointer'],
    scene: 0,
    scenes: [{ name: 'Camera move', nodes: [0] }],
    nodes: [{ name: 'Camera', camera: 0, translation: first.position, rotation: continuousQuaternions([first.quaternion])[0] }],
    cameras: [
      {
        name: 'Camera',
        type: 'perspective',
        perspective: { yfov: yfovs[0], aspectRatio: sensor.widthMm / sensor.heightMm, znear: clipping.near, zfar: clipping.far },
      },
    ],
    buffers: [{ byteLength: bin.byteLength }],
    bufferViews,
    accessors: [
      // An animation's input accessor must state its min and max (glTF 2.0, 3.11).
      { bufferView: 0, componentType: FLOAT, count: n, type: 'SCALAR', min: [f32(times[0])], max: [f32(times[n - 1])] },
      { bufferView: 1, componentType: FLOAT, count: n, type: 'VEC3' },
      { bufferView: 2, componentType: FLOAT, count: n, type: 'VEC4' },
      { bufferView: 3, componentType: FLOAT, count: n, type: 'SCALAR' },
    ],
    animations: [
      {
        name: 'Camera move',
        samplers: [
          { input: 0, output: 1, interpolation: 'LINEAR' },
          { input: 0, output: 2, interpolation: 'LINEAR' },
          { input: 0, output: 3, interpolation: 'LINEAR' },
        ],
        channels: [
          { sampler: 0, target: { node: 0, path: 'translation' } },
          { sampler: 1, target: { node: 0, path: 'rotation' } },
          {
            sampler: 2,
            target: { path: 'pointer', extensions: { KHR_animation_pointer: { pointer: '/cameras/0/perspective/yfov' } } },
          },
        ],
      },
    ],
  };
  return glb(json, new Uint8Array(bin.buffer));
}

/** The GLB container: a 12-byte header, the JSON chunk (space-padded), the BIN chunk (zero-padded). */
function glb(json: unknown, bin: Uint8Array): Uint8Array<ArrayBuffer> {
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = pad4(jsonBytes.length);
  const binLength = pad4(bin.length);
  const total = 12 + 8 + jsonLength + 8 + binLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  out.fill(0x20, 20, 20 + jsonLength);
  out.set(jsonBytes, 20);
  const binAt = 20 + jsonLength;
  view.setUint32(binAt, binLength, true);
  view.setUint32(binAt + 4, CHUNK_BIN, true);
  out.set(bin, binAt + 8);
  return out;
}

function pad4(n: number): number {
  return Math.ceil(n / 4) * 4;
}
