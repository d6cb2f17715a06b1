import {
  Box3,
  DoubleSide,
  Group,
  Mesh,
  Sphere,
  TextureLoader,
  type BufferGeometry,
  type Material,
  type Object3D,
  type Texture,
} from 'three';
import { GLTFLoader, type GLTFLoaderPlugin, type GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { STUDIO_UNITS, placeObject, placeSphere, type WorldPlacement } from './world-placement';

export interface LoadedModel {
  root: Object3D;
  bounds: Sphere;
}

/**
 * GLTFLoader decodes embedded images with ImageBitmapLoader, which `fetch`es a `blob:` URL —
 * refused by our CSP (`connect-src 'self'`). TextureLoader decodes through an <img>, which
 * `img-src blob:` allows. The plugin swaps the loader before any texture is requested.
 */
function imageElementTextures(parser: GLTFParser): GLTFLoaderPlugin {
  parser.textureLoader = new TextureLoader(parser.options.manager);
  return { name: 'scene_studio_image_element_textures' };
}

const loader = new GLTFLoader();
loader.register(imageElementTextures);

/** Parses a GLB already fetched with the bearer header (the loader itself never fetches). */
export async function parseSceneGlb(bytes: ArrayBuffer): Promise<LoadedModel> {
  const gltf = await loader.parseAsync(bytes, '');
  const root = gltf.scene;
  root.name = 'studio-model';
  root.updateMatrixWorld(true);
  const bounds = new Box3().setFromObject(root).getBoundingSphere(new Sphere());
  if (!Number.isFinite(bounds.radius) || bounds.radius <= 0) bounds.radius = 50;
  return { root, bounds };
}

/**
 * One model from a version's GLBs: the drawn mesh and the invisible collider side by side under
 * one `studio-model` root, so focus picking (which casts rays at that root, and three.js rays hit
 * hidden meshes too) and framing see both. `extraBounds` (the splat's) widens the bounds.
 */
export function combineModels(
  parts: { model: LoadedModel; visible: boolean }[],
  extraBounds: Sphere | null,
  world: WorldPlacement = STUDIO_UNITS,
): LoadedModel {
  const root = new Group();
  root.name = 'studio-model';
  let bounds: Sphere | null = extraBounds?.clone() ?? null;
  for (const part of parts) {
    part.model.root.name = part.visible ? 'studio-mesh' : 'studio-collider';
    part.model.root.visible = part.visible;
    // A hidden collider only answers rays (focus, the fly-mode ground): from either side, so a
    // camera that sank below the ground still finds it above.
    if (!part.visible) part.model.root.traverse((node) => forEachMaterial(node, (m) => (m.side = DoubleSide)));
    root.add(part.model.root);
    const placed = placeSphere(part.model.bounds.clone(), world);
    bounds = bounds ? bounds.union(placed) : placed;
  }
  placeObject(root, world);
  return { root, bounds: bounds ?? new Sphere(undefined, 50) };
}

function forEachMaterial(node: Object3D, fn: (material: Material) => void): void {
  if (!(node instanceof Mesh)) return;
  const material = (node as Mesh<BufferGeometry, Material | Material[]>).material;
  for (const m of Array.isArray(material) ? material : [material]) fn(m);
}

/** Frees the GPU resources of a model that is no longer shown. */
export function disposeModel(root: Object3D): void {
  const materials = new Set<Material>();
  const textures = new Set<Texture>();
  root.traverse((node) => {
    if (!(node instanceof Mesh)) return;
    const mesh = node as Mesh<BufferGeometry, Material | Material[]>;
    mesh.geometry.dispose();
    for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) materials.add(material);
  });
  for (const material of materials) {
    for (const value of Object.values(material)) {
      if (value && typeof value === 'object' && (value as Texture).isTexture) textures.add(value as Texture);
    }
    material.dispose();
  }
  for (const texture of textures) texture.dispose();
}
