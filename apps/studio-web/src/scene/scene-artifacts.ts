import type { SceneArtifactInfo } from '../api/studio-api.types';

/** A GLB of the version to load, and whether it is drawn or only used for picking and framing. */
export interface MeshPart {
  kind: 'mesh' | 'collider';
  visible: boolean;
}

export interface VersionParts {
  /** Draw the version's SPZ splat (Spark, loaded on demand). */
  splat: boolean;
  /** A coarse copy of the splat to draw while the world itself downloads and decodes. */
  splatPreview: boolean;
  meshes: MeshPart[];
}

/**
 * What the viewport draws for a version's files. A splat world draws its splat, with its mesh
 * when it has one; its collider is loaded but never drawn (focus picking, fly-mode ground and
 * preset framing use it). Without a splat, the mesh is drawn, or else the collider (a world
 * whose splat is missing is still framed and filmable by its shape). Null: nothing to draw.
 */
export function versionParts(artifacts: readonly SceneArtifactInfo[]): VersionParts | null {
  const kinds = new Set(artifacts.map((a) => a.kind));
  const meshes: MeshPart[] = [];
  if (kinds.has('splat')) {
    if (kinds.has('mesh')) meshes.push({ kind: 'mesh', visible: true });
    if (kinds.has('collider')) meshes.push({ kind: 'collider', visible: false });
    return { splat: true, splatPreview: kinds.has('splat-preview'), meshes };
  }
  if (kinds.has('mesh')) return { splat: false, splatPreview: false, meshes: [{ kind: 'mesh', visible: true }] };
  if (kinds.has('collider')) return { splat: false, splatPreview: false, meshes: [{ kind: 'collider', visible: true }] };
  return null;
}
