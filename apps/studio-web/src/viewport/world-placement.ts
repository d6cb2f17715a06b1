import { Sphere, type Object3D } from 'three';
import type { SceneSpec } from '../api/studio-api.types';

/**
 * Where a version's files go in the studio's units: one unit is one metre, +Y up, the ground at
 * y = 0 (docs/embed.md, "Units"). Procedural worlds are written that way; a provider's world says
 * how to get there (the spec's `world`, from World Labs' `semantics_metadata` and Marble's raw
 * frame). As an Object3D transform (three.js applies scale, then rotation, then position):
 * scale by `scale`, turn 180° about X when `flipYZ` (y and z negated: OpenCV's y-down, z-forward
 * frame to OpenGL's), then lift by `yOffset`.
 */
export interface WorldPlacement {
  scale: number;
  yOffset: number;
  flipYZ: boolean;
}

/** Files already in studio units. */
export const STUDIO_UNITS: WorldPlacement = { scale: 1, yOffset: 0, flipYZ: false };

/**
 * The placement of a world transform: positions × metricScale, then groundOffset off y, both in
 * the files' frame, then the frame turned upright. The offset is taken in the files' frame, so
 * after a flip it lifts (raw y − offset, negated, is −raw y + offset). Identity without one.
 */
export function worldPlacement(world: SceneSpec['world'] | undefined): WorldPlacement {
  if (!world) return STUDIO_UNITS;
  const scale = Number.isFinite(world.metricScale) && world.metricScale > 0 ? world.metricScale : 1;
  // `|| 0`: no offset is +0, never −0 (which would read as a lift in a strict comparison).
  const offset = (Number.isFinite(world.groundOffset) && world.groundOffset) || 0;
  const flipYZ = world.frame === 'opencv';
  return { scale, yOffset: flipYZ ? offset : -offset || 0, flipYZ };
}

/** Applies a placement to a root (a splat mesh, the meshes' group). */
export function placeObject(object: Object3D, world: WorldPlacement): void {
  object.scale.setScalar(world.scale);
  object.rotation.set(world.flipYZ ? Math.PI : 0, 0, 0);
  object.position.set(0, world.yOffset, 0);
  object.updateMatrixWorld(true);
}

/** A bounding sphere of the files, placed (in place, and returned). */
export function placeSphere(sphere: Sphere, world: WorldPlacement): Sphere {
  sphere.center.multiplyScalar(world.scale);
  if (world.flipYZ) sphere.center.set(sphere.center.x, -sphere.center.y, -sphere.center.z);
  sphere.center.y += world.yOffset;
  sphere.radius *= world.scale;
  return sphere;
}
