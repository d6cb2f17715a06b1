import { readGlb } from '../glb';
import { Vec3 } from '../scene-spec';
import { yfovFromFocalLength } from './camera-presets';
import { lookAt, writeSceneGlb } from './glb-writer';
import { composeScene } from './scene-composer';

/** Rotates v by the unit quaternion q = [x, y, z, w]. */
function rotate(q: number[], v: Vec3): Vec3 {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

describe(lookAt.name, () => {
  it.each<[Vec3, Vec3]>([
    [
      [0, 10, 20],
      [0, 0, 0],
    ],
    [
      [5, 1, -3],
      [-7, 4, 9],
    ],
    [
      [0, 100, 0.5],
      [0, 0, 0],
    ],
    [
      [3, 0, 0],
      [0, 0, 0],
    ],
  ])('turns the camera at %p towards %p, keeping the horizon level', (eye, target) => {
    const q = lookAt(eye, target);
    const forward = rotate(q, [0, 0, -1]);
    const d = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
    const len = Math.hypot(...d);
    forward.forEach((f, i) => expect(f).toBeCloseTo(d[i] / len, 6));
    // No roll: the camera's right vector stays horizontal.
    expect(rotate(q, [1, 0, 0])[1]).toBeCloseTo(0, 6);
    expect(Math.hypot(...q)).toBeCloseTo(1, 9);
  });
});

describe(writeSceneGlb.name, () => {
  const spec = composeScene({ prompt: 'a fishing village by the lake at night', seed: 5, sourcePalette: null, backdrop: null });

  it('writes a GLB with terrain, water, one node per prop and one camera node per preset', async () => {
    const doc = await readGlb(await writeSceneGlb(spec, null));
    const root = doc.getRoot();
    const nodes = root.listNodes();
    const names = new Set(nodes.map((n) => n.getName()));
    expect(names).toContain('terrain');
    expect(names).toContain('water');
    expect(nodes.filter((n) => /^(house|tree|bush|lamp|boat|rock)-\d+$/.test(n.getName()))).toHaveLength(spec.props.length);

    for (const preset of spec.cameras) {
      const node = nodes.find((n) => n.getName() === preset.id)!;
      expect(node.getCamera()?.getName()).toBe(preset.name);
      expect(node.getCamera()!.getYFov()).toBeCloseTo(yfovFromFocalLength(preset.focalLengthMm), 6);
      expect(node.getTranslation()).toEqual(preset.position);
    }

    const terrain = root
      .listMeshes()
      .find((m) => m.getName() === 'terrain')!
      .listPrimitives()[0];
    expect(terrain.getAttribute('COLOR_0')).not.toBeNull();
    expect(terrain.getAttribute('NORMAL')).not.toBeNull();
    expect(terrain.getIndices()!.getCount()).toBe(spec.terrain.segments * spec.terrain.segments * 6);
    for (const mesh of root.listMeshes()) for (const p of mesh.listPrimitives()) expect(p.getMaterial()).not.toBeNull();
    expect(root.listTextures()).toHaveLength(0);
  });

  it('shares one mesh between props of the same kind and colour', async () => {
    const doc = await readGlb(await writeSceneGlb(spec, null));
    const distinct = new Set(spec.props.map((p) => `${p.kind}|${p.color}`));
    // + terrain + water
    expect(doc.getRoot().listMeshes()).toHaveLength(distinct.size + 2);
  });

  it('lights windows and lamps at night', async () => {
    const doc = await readGlb(await writeSceneGlb(spec, null));
    const lit = doc
      .getRoot()
      .listMaterials()
      .filter((m) => m.getEmissiveFactor().some((c) => c > 0))
      .map((m) => m.getName());
    expect(lit).toEqual(expect.arrayContaining(['lamp glow', 'windows lit']));
  });

  it('adds a textured backdrop when given the image', async () => {
    const withBackdrop = { ...spec, backdrop: { sourceSha256: 'a'.repeat(64), position: [0, 40, -84] as Vec3, width: 176, height: 99 } };
    const doc = await readGlb(await writeSceneGlb(withBackdrop, { bytes: Buffer.from('jpeg bytes'), mimeType: 'image/jpeg' }));
    const material = doc
      .getRoot()
      .listMaterials()
      .find((m) => m.getName() === 'backdrop')!;
    expect(material.getBaseColorTexture()?.getMimeType()).toBe('image/jpeg');
    expect(Buffer.from(material.getBaseColorTexture()!.getImage()!).toString()).toBe('jpeg bytes');
    const plane = doc
      .getRoot()
      .listMeshes()
      .find((m) => m.getName() === 'backdrop')!
      .listPrimitives()[0];
    expect(plane.getAttribute('TEXCOORD_0')).not.toBeNull();
  });

  it('writes the same bytes for the same spec', async () => {
    expect((await writeSceneGlb(spec, null)).equals(await writeSceneGlb(spec, null))).toBe(true);
  });
});
