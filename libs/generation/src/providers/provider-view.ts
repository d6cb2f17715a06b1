import { Document, getBounds } from '@gltf-transform/core';
import { CameraPreset, EditRecord, SCENE_SPEC_SCHEMA_VERSION, SceneView, Vec3, WorldTransform } from '@scene-studio/world-engine';

export interface Box {
  min: Vec3;
  max: Vec3;
}

/** The bounding box of a GLB's first scene, or null when it has no geometry. */
export function glbBounds(doc: Document): Box | null {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  if (!scene) return null;
  const { min, max } = getBounds(scene);
  if (![...min, ...max].every(Number.isFinite) || min.some((v, i) => v > max[i])) return null;
  return { min, max };
}

const r = (n: number) => Math.round(n * 1000) / 1000;
const v3 = (x: number, y: number, z: number): Vec3 => [r(x), r(y), r(z)];

/**
 * Presets around an object (a Meshy model): a front view, a three-quarter hero and a high view,
 * at a distance where the object fills the frame at each preset's focal length.
 */
function objectPresets(box: Box): CameraPreset[] {
  const c: Vec3 = [(box.min[0] + box.max[0]) / 2, (box.min[1] + box.max[1]) / 2, (box.min[2] + box.max[2]) / 2];
  const radius = Math.max(0.05, Math.hypot(box.max[0] - box.min[0], box.max[1] - box.min[1], box.max[2] - box.min[2]) / 2);
  // Vertical half field of view of a full-frame lens: atan(12 / f).
  const distance = (f: number) => (radius / Math.tan(Math.atan(12 / f))) * 1.15;
  const at = (dir: Vec3, f: number): Vec3 => {
    const d = distance(f);
    const n = Math.hypot(...dir);
    return v3(c[0] + (dir[0] / n) * d, c[1] + (dir[1] / n) * d, c[2] + (dir[2] / n) * d);
  };
  const target = v3(...c);
  return [
    { id: 'front', name: 'Front', position: at([0, 0.15, 1], 50), target, focalLengthMm: 50 },
    { id: 'hero', name: 'Three-quarter', position: at([0.7, 0.35, 0.7], 35), target, focalLengthMm: 35 },
    { id: 'high', name: 'High angle', position: at([0, 1, 0.45], 35), target, focalLengthMm: 35 },
  ];
}

/**
 * Presets inside a world (a World Labs world): its origin is where the source view was taken,
 * at standing height, looking down −Z; the presets look ahead, to each side and behind.
 */
function worldPresets(): CameraPreset[] {
  const eye = 1.6;
  const look = (id: string, name: string, dir: [number, number]): CameraPreset => ({
    id,
    name,
    position: v3(0, eye, 0),
    target: v3(dir[0] * 10, eye, dir[1] * 10),
    focalLengthMm: 24,
  });
  return [look('ahead', 'Ahead', [0, -1]), look('left', 'Left', [-1, 0]), look('right', 'Right', [1, 0]), look('behind', 'Behind', [0, 1])];
}

/**
 * The view of a provider's scene: a neutral daylight environment (a world's light is in its
 * splats; a model is lit evenly), no fog, presets framing the model's bounds or standing inside
 * the world, and the edit history carried over from the version it replaces.
 */
export function providerView(input: { prompt: string; bounds: Box | null; edits: EditRecord[]; world?: WorldTransform }): SceneView {
  return {
    ...(input.world ? { world: input.world } : {}),
    schemaVersion: SCENE_SPEC_SCHEMA_VERSION,
    prompt: input.prompt,
    sky: { top: '#5b84c4', horizon: '#d6e2f0' },
    lighting: {
      sun: { direction: v3(0.4, 0.8, 0.45), color: '#fff6e8', intensity: 2.2 },
      ambient: { color: '#ffffff', intensity: 0.9 },
    },
    fog: null,
    cameras: input.bounds ? objectPresets(input.bounds) : worldPresets(),
    edits: input.edits,
  };
}

/** The edit history of the version an edit regenerates, plus this edit. */
export function editsAfter(request: { version: number; edit: { previous: SceneView; instruction: string } | null }): EditRecord[] {
  if (!request.edit) return [];
  return [...request.edit.previous.edits, { version: request.version, instruction: request.edit.instruction, changes: ['regenerated'] }];
}

/**
 * The prompt a provider that cannot edit receives for an edit: the original prompt with every
 * instruction so far, so the regenerated scene keeps what earlier turns asked for.
 */
export function promptWithEdits(request: { prompt: string; edit: { previous: SceneView; instruction: string } | null }): string {
  if (!request.edit) return request.prompt;
  const turns = [...request.edit.previous.edits.map((e) => e.instruction), request.edit.instruction].filter((t) => t.trim() !== '');
  return [request.prompt, ...turns.map((t) => `Change: ${t}`)].join('\n');
}
