import { Euler, MathUtils, Quaternion, Vector3, type PerspectiveCamera } from 'three';
import type { CameraPreset } from '../api/studio-api.types';
import type { MovePose } from '../model/camera-move';
import {
  DEFAULT_FRAME,
  F_STOPS,
  ROLL_LIMIT_DEG,
  clampFocal,
  clampFocus,
  filmGauge,
  frameFormat,
  type AspectId,
  type FrameFormat,
  type SensorId,
} from '../model/lens';

export type NavigationMode = 'orbit' | 'fly';

const PITCH_LIMIT = MathUtils.degToRad(89.5);
const MIN_ORBIT_DISTANCE = 0.5;
const UP = new Vector3(0, 1, 0);

/**
 * What stops the camera in fly mode (the world's collider): given a move from `from` to `to`, it
 * moves `to` back to where the camera may go instead. Only moves made by input pass through it;
 * presets, playback and renders put the camera where they say.
 */
export interface MoveConstraint {
  constrain(from: Vector3, to: Vector3): void;
}

/** Where the camera is and what lens it has: everything a frame of a take records. */
export interface CameraPose {
  position: Vector3;
  quaternion: Quaternion;
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  rollDeg: number;
}

/**
 * The virtual camera as a cinematographer thinks of it: a position, a heading (yaw), a tilt
 * (pitch), a roll, and a lens. Orbit and fly are two ways of moving the same rig: orbit turns
 * about a target `orbitDistance` ahead, fly turns in place. Every input source (keys, pointer,
 * gamepad, 3D mouse) drives these methods, and `revision` tells the viewport to redraw.
 */
export class CameraRig {
  readonly position = new Vector3();
  yaw = 0;
  pitch = 0;
  roll = 0;
  orbitDistance = 10;
  focalLengthMm = 35;
  focusDistanceM = 10;
  fNumber = 2.8;
  navigation: NavigationMode = 'orbit';
  /** Walls and ground for fly mode, when the scene has a collider. */
  walls: MoveConstraint | null = null;
  /** Metres per second at normal speed; set from the scene's size. */
  moveSpeed = 6;
  revision = 0;
  /** Called on every change (touch): the viewport wakes its frame loop from rest. */
  onTouch: (() => void) | null = null;

  private frameFormat: FrameFormat = DEFAULT_FRAME;
  private readonly euler = new Euler(0, 0, 0, 'YXZ');
  private readonly tmp = new Vector3();
  private readonly tmp2 = new Vector3();
  private readonly next = new Vector3();
  private readonly quaternionTmp = new Quaternion();

  setFromPreset(preset: CameraPreset): void {
    const position = new Vector3(...preset.position);
    const target = new Vector3(...preset.target);
    const dir = target.clone().sub(position);
    const distance = dir.length();
    if (distance > 1e-6) {
      dir.divideScalar(distance);
      this.pitch = MathUtils.clamp(Math.asin(MathUtils.clamp(dir.y, -1, 1)), -PITCH_LIMIT, PITCH_LIMIT);
      this.yaw = Math.atan2(-dir.x, -dir.z);
    }
    this.position.copy(position);
    this.orbitDistance = Math.max(MIN_ORBIT_DISTANCE, distance);
    this.roll = 0;
    this.focalLengthMm = clampFocal(preset.focalLengthMm);
    this.focusDistanceM = clampFocus(distance);
    this.touch();
  }

  forward(out = new Vector3()): Vector3 {
    const cp = Math.cos(this.pitch);
    return out.set(-Math.sin(this.yaw) * cp, Math.sin(this.pitch), -Math.cos(this.yaw) * cp);
  }

  /** Horizontal right vector: strafing never climbs or sinks. */
  right(out = new Vector3()): Vector3 {
    return out.set(Math.cos(this.yaw), 0, -Math.sin(this.yaw));
  }

  target(out = new Vector3()): Vector3 {
    return out.copy(this.position).addScaledVector(this.forward(this.tmp), this.orbitDistance);
  }

  setNavigation(mode: NavigationMode): void {
    if (this.navigation === mode) return;
    this.navigation = mode;
    this.touch();
  }

  /**
   * Moves in the rig's own frame: `forward` along the view (fly) or along the ground (orbit,
   * which carries its target along), `right` sideways, `up` straight up.
   */
  move(forward: number, right: number, up: number): void {
    if (forward === 0 && right === 0 && up === 0) return;
    const f = this.forward(this.tmp);
    if (this.navigation === 'orbit') {
      f.y = 0;
      if (f.lengthSq() < 1e-8) f.set(-Math.sin(this.yaw), 0, -Math.cos(this.yaw));
      f.normalize();
    }
    const next = this.next
      .copy(this.position)
      .addScaledVector(f, forward)
      .addScaledVector(this.right(this.tmp2), right)
      .addScaledVector(UP, up);
    this.moveTo(next);
  }

  /** Turns the view: in place (fly) or about the orbit target (orbit). Radians. */
  turn(deltaYaw: number, deltaPitch: number): void {
    if (deltaYaw === 0 && deltaPitch === 0) return;
    const target = this.navigation === 'orbit' ? this.target(new Vector3()) : null;
    this.yaw = wrapAngle(this.yaw + deltaYaw);
    this.pitch = MathUtils.clamp(this.pitch + deltaPitch, -PITCH_LIMIT, PITCH_LIMIT);
    if (target) this.position.copy(target).addScaledVector(this.forward(this.tmp), -this.orbitDistance);
    this.touch();
  }

  /** Moves towards (factor < 1) or away from the orbit target; in fly mode, along the view. */
  dolly(factor: number): void {
    if (factor === 1) return;
    if (this.navigation === 'orbit') {
      const target = this.target(new Vector3());
      this.orbitDistance = MathUtils.clamp(this.orbitDistance * factor, MIN_ORBIT_DISTANCE, 5000);
      this.position.copy(target).addScaledVector(this.forward(this.tmp), -this.orbitDistance);
      this.touch();
    } else {
      this.moveTo(this.next.copy(this.position).addScaledVector(this.forward(this.tmp), (1 - factor) * this.orbitDistance));
    }
  }

  /** Slides the camera (and its orbit target) in the image plane; metres. */
  pan(right: number, up: number): void {
    if (right === 0 && up === 0) return;
    this.euler.set(this.pitch, this.yaw, this.roll);
    const q = new Quaternion().setFromEuler(this.euler);
    const next = this.next.copy(this.position);
    next.addScaledVector(this.tmp.set(1, 0, 0).applyQuaternion(q), right);
    next.addScaledVector(this.tmp.set(0, 1, 0).applyQuaternion(q), up);
    this.moveTo(next);
  }

  /** Moves to `next`; in fly mode the walls have their say first (orbit circles outside the world). */
  private moveTo(next: Vector3): void {
    if (this.navigation === 'fly' && this.walls) this.walls.constrain(this.position, next);
    this.position.copy(next);
    this.touch();
  }

  setFocalLength(mm: number): void {
    const next = clampFocal(mm);
    if (next === this.focalLengthMm) return;
    this.focalLengthMm = next;
    this.touch();
  }

  /** Multiplies the focal length (zooming feels even on a ratio, not on millimetres). */
  zoom(factor: number): void {
    this.setFocalLength(this.focalLengthMm * factor);
  }

  setFocusDistance(m: number): void {
    const next = clampFocus(m);
    if (next === this.focusDistanceM) return;
    this.focusDistanceM = next;
    this.touch();
  }

  setFNumber(n: number): void {
    if (!Number.isFinite(n) || n <= 0 || n === this.fNumber) return;
    this.fNumber = n;
    this.touch();
  }

  /** Steps the aperture one stop on the standard scale (+1 = smaller opening). */
  stepAperture(direction: 1 | -1): void {
    const index = F_STOPS.findIndex((s) => s >= this.fNumber - 1e-6);
    const current = index === -1 ? F_STOPS.length - 1 : index;
    this.setFNumber(F_STOPS[MathUtils.clamp(current + direction, 0, F_STOPS.length - 1)]);
  }

  setRollDeg(deg: number): void {
    const next = MathUtils.degToRad(MathUtils.clamp(deg, -ROLL_LIMIT_DEG, ROLL_LIMIT_DEG));
    if (next === this.roll) return;
    this.roll = next;
    this.touch();
  }

  /**
   * The sensor and the frame aspect cut from it: the one place the viewport (its shape), the
   * lens maths (fields of view) and camera paths (`sensor`, `video.aspect`) read them from.
   */
  get frame(): FrameFormat {
    return this.frameFormat;
  }

  setFrame(sensor: SensorId, aspect: AspectId): void {
    if (sensor === this.frameFormat.sensor.id && aspect === this.frameFormat.aspect.id) return;
    this.frameFormat = frameFormat(sensor, aspect);
    this.touch();
  }

  get rollDeg(): number {
    return MathUtils.radToDeg(this.roll);
  }

  apply(camera: PerspectiveCamera): void {
    camera.position.copy(this.position);
    this.euler.set(this.pitch, this.yaw, this.roll);
    camera.quaternion.setFromEuler(this.euler);
    // The projection is the gate's, whatever the canvas rounded its pixels to.
    camera.aspect = this.frameFormat.aspect.ratio;
    camera.filmGauge = filmGauge(this.frameFormat);
    camera.setFocalLength(this.focalLengthMm);
  }

  pose(camera: PerspectiveCamera): CameraPose {
    return {
      position: camera.position.clone(),
      quaternion: camera.quaternion.clone(),
      focalLengthMm: this.focalLengthMm,
      focusDistanceM: this.focusDistanceM,
      fNumber: this.fNumber,
      rollDeg: this.rollDeg,
    };
  }

  /** The pose in camera-path terms (arrays, glTF axes, the orientation with its roll): a keyframe's or a saved view's. */
  movePose(camera: PerspectiveCamera): MovePose {
    this.apply(camera);
    return {
      position: camera.position.toArray(),
      quaternion: camera.quaternion.toArray(),
      focalLengthMm: this.focalLengthMm,
      focusDistanceM: this.focusDistanceM,
      fNumber: this.fNumber,
      rollDeg: this.rollDeg,
    };
  }

  /**
   * Puts the rig at a pose of a camera move (playback, offline render): the orientation is split
   * back into the rig's yaw, pitch and roll, so moving by hand afterwards starts from there.
   */
  setPose(pose: MovePose): void {
    this.position.set(...pose.position);
    this.euler.setFromQuaternion(this.quaternionTmp.set(...pose.quaternion), 'YXZ');
    this.pitch = MathUtils.clamp(this.euler.x, -PITCH_LIMIT, PITCH_LIMIT);
    this.yaw = this.euler.y;
    this.roll = this.euler.z;
    this.focalLengthMm = clampFocal(pose.focalLengthMm);
    this.focusDistanceM = clampFocus(pose.focusDistanceM);
    this.fNumber = pose.fNumber;
    this.touch();
  }

  /**
   * Everything a move, a jump or the frame selects change (position, heading, tilt, roll, lens,
   * orbit distance, navigation, frame), to be put back exactly: an offline render borrows the
   * rig and must return the view the user had, to the last bit.
   */
  snapshot(): () => void {
    const position = this.position.clone();
    const { yaw, pitch, roll, orbitDistance, focalLengthMm, focusDistanceM, fNumber, navigation, frameFormat } = this;
    return () => {
      this.position.copy(position);
      this.yaw = yaw;
      this.pitch = pitch;
      this.roll = roll;
      this.orbitDistance = orbitDistance;
      this.focalLengthMm = focalLengthMm;
      this.focusDistanceM = focusDistanceM;
      this.fNumber = fNumber;
      this.navigation = navigation;
      this.frameFormat = frameFormat;
      this.touch();
    };
  }

  touch(): void {
    this.revision++;
    this.onTouch?.();
  }
}

function wrapAngle(a: number): number {
  return Math.atan2(Math.sin(a), Math.cos(a));
}
