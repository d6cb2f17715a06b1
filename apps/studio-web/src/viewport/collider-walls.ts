import { Raycaster, Vector3, type Intersection, type Object3D } from 'three';
import type { MoveConstraint } from './camera-rig';

/** How close the camera may come to a wall: enough that the near plane never cuts into it. */
export const WALL_CLEARANCE_M = 0.3;

/**
 * The world's collider as walls for fly mode: a move that would cross a surface ends
 * WALL_CLEARANCE_M short of it, and what is left of the move slides along the surface (once), so
 * flying at a wall at an angle glides along it instead of sticking. The collider's triangles are
 * seen from both sides (scene-loader makes them double-sided), so a camera that is already inside
 * an object is held there too until it is moved out by a preset.
 */
export class ColliderWalls implements MoveConstraint {
  private readonly ray = new Raycaster();
  private readonly delta = new Vector3();
  private readonly direction = new Vector3();
  private readonly normal = new Vector3();
  private readonly stop = new Vector3();

  constructor(private readonly collider: Object3D) {}

  constrain(from: Vector3, to: Vector3): void {
    const rest = this.delta.subVectors(to, from);
    const hit = this.firstHit(from, rest);
    if (!hit) return;
    const length = rest.length();
    const travel = Math.max(0, hit.distance - WALL_CLEARANCE_M);
    this.stop.copy(from).addScaledVector(this.direction, travel);
    // What the wall took of the move, projected onto the wall's plane.
    rest.multiplyScalar(1 - travel / length);
    const n = this.surfaceNormal(hit);
    rest.addScaledVector(n, -rest.dot(n));
    const slide = this.firstHit(this.stop, rest);
    if (slide) rest.setLength(Math.max(0, slide.distance - WALL_CLEARANCE_M));
    to.copy(this.stop).add(rest);
  }

  /** The first surface within the move plus the clearance; sets `direction`. */
  private firstHit(from: Vector3, move: Vector3): Intersection | null {
    const length = move.length();
    if (length < 1e-9) return null;
    this.direction.copy(move).divideScalar(length);
    this.ray.set(from, this.direction);
    this.ray.far = length + WALL_CLEARANCE_M;
    return this.ray.intersectObject(this.collider, true)[0] ?? null;
  }

  /** The hit triangle's normal in world space, turned to face the camera. */
  private surfaceNormal(hit: Intersection): Vector3 {
    const n = this.normal.set(0, 1, 0);
    if (hit.face) n.copy(hit.face.normal).transformDirection(hit.object.matrixWorld);
    if (n.dot(this.direction) > 0) n.negate();
    return n;
  }
}
