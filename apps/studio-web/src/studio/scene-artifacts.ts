import type { SceneArtifactInfo } from '../api/studio-api.types';

/**
 * The GLB to draw for a version: its mesh, or else the collider mesh a splat world comes with
 * (its shape, untextured), so a World Labs world is framed and filmable before its splat is drawn.
 */
export function meshToShow(artifacts: readonly SceneArtifactInfo[]): 'mesh' | 'collider' | null {
  const kinds = new Set(artifacts.map((a) => a.kind));
  return kinds.has('mesh') ? 'mesh' : kinds.has('collider') ? 'collider' : null;
}
