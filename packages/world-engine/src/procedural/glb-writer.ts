import { Accessor, Buffer as GltfBuffer, Document, Material, Mesh, Node } from '@gltf-transform/core';
import { createGltfIO } from '../glb';
import { HexColor, SceneSpec, TerrainSpec, Vec3, WaterSpec } from '../scene-spec';
import { Rgb, hexToLinear, hexToRgb, mixRgb, rgbToLinear } from './colors';
import { cross, normalize } from './geometry';
import { FRAME_ASPECT, yfovFromFocalLength } from './camera-presets';
import { Prng } from './prng';
import { PartMaterial, partMaterial, propParts } from './prop-meshes';
import { HeightField, createHeightField, smoothstep } from './terrain-field';

const io = createGltfIO();

/**
 * Spec → glTF 2.0 binary. The file holds what a renderer needs as geometry: the terrain with
 * vertex colours, the water, every prop (meshes shared between props of the same kind and
 * colour) and one camera node per preset, named by the preset's id. Lights, fog and sky stay in
 * the spec: core glTF has no place for them.
 *
 * The file is served to every studio mode, perform included, which never learns how the scene
 * was asked for (docs/embed.md, "What each mode receives"). So it carries nothing read from the
 * prompt or the source image beyond what it draws: no seed (a digest of the prompt: a guessed
 * prompt could be confirmed against it), no names from the prompt's vocabulary (props, their
 * meshes and materials are numbered), no extras, and no texture of the source image (which a
 * perform session may not fetch; the edit modes show it beside the scene).
 *
 * Nothing here reads the clock or randomness other than the spec's seeds, so the same spec gives
 * the same bytes.
 */
export async function writeSceneGlb(spec: SceneSpec): Promise<Buffer> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'Scene Studio';
  const buffer = doc.createBuffer('scene');
  const scene = doc.createScene('Scene');
  const w = new Writer(doc, buffer, spec.timeOfDay === 'night' || spec.timeOfDay === 'sunset');

  const field = createHeightField(spec.terrain);
  scene.addChild(w.terrain(spec.terrain, spec.water, field));
  if (spec.water) scene.addChild(w.water(spec.water, spec.terrain.size));

  const props = doc.createNode('props');
  spec.props.forEach((prop, i) => {
    props.addChild(
      doc
        .createNode(`prop-${i}`)
        .setMesh(w.propMesh(prop.kind, prop.color))
        .setTranslation(prop.position)
        .setRotation([0, Math.sin(prop.rotationY / 2), 0, Math.cos(prop.rotationY / 2)])
        .setScale(prop.scale),
    );
  });
  scene.addChild(props);

  for (const preset of spec.cameras) {
    const camera = doc
      .createCamera(preset.name)
      .setType('perspective')
      .setYFov(yfovFromFocalLength(preset.focalLengthMm))
      .setAspectRatio(FRAME_ASPECT)
      .setZNear(0.1)
      .setZFar(Math.max(1000, spec.terrain.size * 8));
    scene.addChild(
      doc.createNode(preset.id).setCamera(camera).setTranslation(preset.position).setRotation(lookAt(preset.position, preset.target)),
    );
  }

  return Buffer.from(await io.writeBinary(doc));
}

class Writer {
  private readonly materials = new Map<string, Material>();
  private readonly meshes = new Map<string, Mesh>();
  private readonly partAccessors = new Map<string, { position: Accessor; normal: Accessor; indices: Accessor }>();

  constructor(
    private readonly doc: Document,
    private readonly buffer: GltfBuffer,
    private readonly night: boolean,
  ) {}

  terrain(terrain: TerrainSpec, water: WaterSpec | null, field: HeightField): Node {
    const n = terrain.segments + 1;
    const step = terrain.size / terrain.segments;
    const half = terrain.size / 2;
    const heights = new Float64Array(n * n);
    let min = Infinity;
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const h = field(-half + i * step, -half + j * step);
        heights[j * n + i] = h;
        if (h < min) min = h;
        if (h > max) max = h;
      }
    }
    const span = max - min || 1;
    const at = (i: number, j: number) => heights[Math.min(n - 1, Math.max(0, j)) * n + Math.min(n - 1, Math.max(0, i))];

    const positions = new Float32Array(n * n * 3);
    const normals = new Float32Array(n * n * 3);
    const colors = new Float32Array(n * n * 3);
    const low = hexToRgb(terrain.colors.low);
    const mid = hexToRgb(terrain.colors.mid);
    const high = hexToRgb(terrain.colors.high);
    const shore = hexToRgb(terrain.colors.shore);
    const rockFace: Rgb = terrain.snowCover ? hexToRgb('#8a8f96') : hexToRgb('#6e675e');
    const grain = new Prng(terrain.seed ^ 0x9e3779b9);
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const k = j * n + i;
        const h = heights[k];
        positions.set([-half + i * step, h, -half + j * step], k * 3);
        const normal = normalize([(at(i - 1, j) - at(i + 1, j)) / (2 * step), 1, (at(i, j - 1) - at(i, j + 1)) / (2 * step)]);
        normals.set(normal, k * 3);

        const t = (h - min) / span;
        let c = mixRgb(low, mid, smoothstep(0.15, 0.55, t));
        c = terrain.shape === 'peaks' ? mixRgb(c, high, smoothstep(0.55, 0.8, t)) : mixRgb(c, high, 0.8 * smoothstep(0.55, 1, t));
        c = mixRgb(c, rockFace, 0.6 * smoothstep(0.35, 0.7, 1 - normal[1]));
        if (water) c = mixRgb(c, shore, 1 - smoothstep(0.2, 1.4, h - water.level));
        const g = 1 + (grain.next() - 0.5) * 0.08;
        colors.set(rgbToLinear([c[0] * g, c[1] * g, c[2] * g]), k * 3);
      }
    }
    const indices = indexArray(n * n, terrain.segments * terrain.segments * 6);
    let o = 0;
    for (let j = 0; j < terrain.segments; j++) {
      for (let i = 0; i < terrain.segments; i++) {
        const a = j * n + i;
        const b = (j + 1) * n + i;
        const c = a + 1;
        const d = b + 1;
        indices[o++] = a;
        indices[o++] = b;
        indices[o++] = c;
        indices[o++] = c;
        indices[o++] = b;
        indices[o++] = d;
      }
    }
    const material = this.doc.createMaterial('terrain').setBaseColorFactor([1, 1, 1, 1]).setRoughnessFactor(0.95).setMetallicFactor(0);
    const primitive = this.doc
      .createPrimitive()
      .setAttribute('POSITION', this.accessor('VEC3', positions))
      .setAttribute('NORMAL', this.accessor('VEC3', normals))
      .setAttribute('COLOR_0', this.accessor('VEC3', colors))
      .setIndices(this.accessor('SCALAR', indices))
      .setMaterial(material);
    return this.doc.createNode('terrain').setMesh(this.doc.createMesh('terrain').addPrimitive(primitive));
  }

  water(water: WaterSpec, size: number): Node {
    const h = size / 2;
    const y = water.level;
    const [r, g, b] = hexToLinear(water.color);
    const material = this.doc
      .createMaterial('water')
      .setBaseColorFactor([r, g, b, water.opacity])
      .setAlphaMode('BLEND')
      .setRoughnessFactor(0.12)
      .setMetallicFactor(0.1);
    const primitive = this.doc
      .createPrimitive()
      .setAttribute('POSITION', this.accessor('VEC3', new Float32Array([-h, y, -h, -h, y, h, h, y, -h, h, y, h])))
      .setAttribute('NORMAL', this.accessor('VEC3', new Float32Array([0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0])))
      .setIndices(this.accessor('SCALAR', new Uint16Array([0, 1, 2, 2, 1, 3])))
      .setMaterial(material);
    return this.doc.createNode('water').setMesh(this.doc.createMesh('water').addPrimitive(primitive));
  }

  /**
   * One mesh per (kind, colour), shared by every such prop; geometry shared across colours.
   * Numbered, not named after the kind: a name from the prompt's vocabulary is no business of a
   * perform session's.
   */
  propMesh(kind: SceneSpec['props'][number]['kind'], color: HexColor): Mesh {
    const key = `${kind}|${color}`;
    const cached = this.meshes.get(key);
    if (cached) return cached;
    const mesh = this.doc.createMesh(`prop-mesh-${this.meshes.size}`);
    propParts(kind).forEach((part, index) => {
      const partKey = `${kind}|${index}`;
      let accessors = this.partAccessors.get(partKey);
      if (!accessors) {
        const geometry = part.geometry;
        accessors = {
          position: this.accessor('VEC3', new Float32Array(geometry.positions)),
          normal: this.accessor('VEC3', new Float32Array(geometry.normals)),
          indices: this.accessor('SCALAR', fillIndices(geometry.vertexCount, geometry.indices)),
        };
        this.partAccessors.set(partKey, accessors);
      }
      mesh.addPrimitive(
        this.doc
          .createPrimitive()
          .setAttribute('POSITION', accessors.position)
          .setAttribute('NORMAL', accessors.normal)
          .setIndices(accessors.indices)
          .setMaterial(this.material(partMaterial(part.role, color, this.night))),
      );
    });
    this.meshes.set(key, mesh);
    return mesh;
  }

  private material(spec: PartMaterial): Material {
    const key = `${spec.name}|${spec.color}|${spec.emissive ?? ''}`;
    let material = this.materials.get(key);
    if (!material) {
      const [r, g, b] = hexToLinear(spec.color);
      material = this.doc
        .createMaterial(`prop-material-${this.materials.size}`)
        .setBaseColorFactor([r, g, b, 1])
        .setRoughnessFactor(spec.roughness)
        .setMetallicFactor(spec.metallic);
      if (spec.emissive) material.setEmissiveFactor(hexToLinear(spec.emissive));
      this.materials.set(key, material);
    }
    return material;
  }

  private accessor(type: 'SCALAR' | 'VEC2' | 'VEC3', array: Float32Array | Uint16Array | Uint32Array): Accessor {
    return this.doc.createAccessor().setType(type).setArray(array).setBuffer(this.buffer);
  }
}

function indexArray(vertexCount: number, length: number): Uint16Array | Uint32Array {
  return vertexCount <= 0xffff ? new Uint16Array(length) : new Uint32Array(length);
}

function fillIndices(vertexCount: number, indices: number[]): Uint16Array | Uint32Array {
  const out = indexArray(vertexCount, indices.length);
  out.set(indices);
  return out;
}

/**
 * The rotation that points a glTF camera (which looks down its local −Z with +Y up) from
 * `eye` at `target`, as a unit quaternion [x, y, z, w].
 */
export function lookAt(eye: Vec3, target: Vec3): [number, number, number, number] {
  const back = normalize([eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]]);
  let right = cross([0, 1, 0], back);
  if (Math.hypot(...right) < 1e-6) right = cross([0, 0, -1], back);
  right = normalize(right);
  const up = cross(back, right);
  // Rotation matrix columns: right, up, back.
  const [m00, m10, m20] = right;
  const [m01, m11, m21] = up;
  const [m02, m12, m22] = back;
  const trace = m00 + m11 + m22;
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    w = 0.25 / s;
    x = (m21 - m12) * s;
    y = (m02 - m20) * s;
    z = (m10 - m01) * s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s;
    x = 0.25 * s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = 0.25 * s;
    z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = 0.25 * s;
  }
  const len = Math.hypot(x, y, z, w);
  return [x / len, y / len, z / len, w / len];
}
