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
    const doc = await readGlb(await writeSceneGlb(spec));
    const root = doc.getRoot();
    const nodes = root.listNodes();
    const names = new Set(nodes.map((n) => n.getName()));
    expect(names).toContain('terrain');
    expect(names).toContain('water');
    expect(nodes.filter((n) => /^prop-\d+$/.test(n.getName()))).toHaveLength(spec.props.length);

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
    const doc = await readGlb(await writeSceneGlb(spec));
    const distinct = new Set(spec.props.map((p) => `${p.kind}|${p.color}`));
    // + terrain + water
    expect(doc.getRoot().listMeshes()).toHaveLength(distinct.size + 2);
  });

  it('lights windows and lamps at night', async () => {
    const doc = await readGlb(await writeSceneGlb(spec));
    const lit = doc
      .getRoot()
      .listMaterials()
      .filter((m) => m.getEmissiveFactor().some((c) => c > 0));
    // The lamps' glow and the lit windows of the houses.
    expect(lit.length).toBeGreaterThanOrEqual(2);
  });

  it('writes nothing read from the prompt or the source image but the drawing', async () => {
    const prompt = 'a snowman and boats by the lake in a village at night';
    const composed = composeScene({
      prompt,
      seed: 1234567,
      sourcePalette: ['#aa3311', '#11aa33'],
      backdrop: { sourceSha256: 'b'.repeat(64), aspect: 16 / 9 },
    });
    expect(composed.backdrop).not.toBeNull();
    const glb = await writeSceneGlb(composed);
    const doc = await readGlb(glb);
    const root = doc.getRoot();
    // No texture of the source image, no extras (the seed was one), no prop named after its kind.
    expect(root.listTextures()).toHaveLength(0);
    const properties = [
      root,
      ...root.listNodes(),
      ...root.listMeshes(),
      ...root.listMaterials(),
      ...root.listScenes(),
      ...root.listCameras(),
    ];
    for (const p of properties) expect(p.getExtras()).toEqual({});
    const json = glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8');
    const words = new Set(prompt.split(' ').filter((w) => w.length > 3));
    for (const kind of new Set(composed.props.map((p) => p.kind))) words.add(kind);
    for (const word of [...words, 'backdrop', 'source', 'seed', String(composed.seed)]) expect(json).not.toContain(word);
    expect(JSON.parse(json).asset).toEqual({ generator: 'Scene Studio', version: '2.0' });
  });

  it('writes the same bytes for the same spec', async () => {
    expect((await writeSceneGlb(spec)).equals(await writeSceneGlb(spec))).toBe(true);
  });
});
