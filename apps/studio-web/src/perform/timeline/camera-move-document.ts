import { moveFromPath, type CameraMove, type MovePose } from '../../viewport/camera-move';
import { fieldOfView, type FrameFormat } from '../../viewport/lens';
import {
  cameraPathHeader,
  type CameraPathDocument,
  type CameraPathKeyframe,
  type CameraPathSample,
  type KeyframeEasing,
} from '../camera-path';
import { moveFromKeyframes } from './keyframe-move';

/** Baked samples of an authored move: what a tool that reads only `samples` gets. */
export const BAKE_FPS = 30;

/**
 * The move a camera-path document describes, whatever made it: its keyframes when it has any
 * (they *are* the move), otherwise its samples (a take).
 */
export function moveFromDocument(doc: CameraPathDocument): CameraMove {
  if (doc.keyframes && doc.keyframes.length > 0) return moveFromKeyframes(doc.keyframes, doc.smoothing ?? 0, doc.durationMs);
  return moveFromPath(doc);
}

export interface KeyframedMove {
  keyframes: readonly CameraPathKeyframe[];
  smoothing: number;
  durationMs: number;
}

export interface DocumentFacts {
  /** The rig's sensor and aspect: the document says which gate the lens values belong to. */
  frame: FrameFormat;
  sceneVersion: number | null;
  /** ISO 8601: when the move was last saved (or now, for one never saved). */
  recordedAt: string;
}

/**
 * The file for an authored move: its keyframes and smoothing, and the same move baked into
 * samples at 30 fps (0, 33.3, 66.7 … ms and the last at `durationMs`) so a tool that reads only
 * samples plays it too. No video (`mimeType` ""), no markers.
 */
export function documentForMove(move: KeyframedMove, facts: DocumentFacts): CameraPathDocument {
  const evaluated = moveFromKeyframes(move.keyframes, move.smoothing, move.durationMs);
  const durationMs = evaluated.durationMs;
  const frameMs = 1000 / BAKE_FPS;
  const samples: CameraPathSample[] = [];
  const count = Math.floor(durationMs / frameMs + 1e-9);
  for (let i = 0; i <= count; i++) samples.push(sampleAt(round(i * frameMs, 1), evaluated, facts.frame));
  if (samples[samples.length - 1].t < durationMs) samples.push(sampleAt(durationMs, evaluated, facts.frame));
  return {
    ...cameraPathHeader(facts.frame, { ...facts, durationMs, mimeType: '' }),
    samples,
    markers: [],
    keyframes: move.keyframes.map(copyKeyframe),
    smoothing: move.smoothing,
  };
}

/**
 * A keyframe of a pose, in the file's precision (as takes record it): positions to 0.1 mm,
 * quaternions to 1e-6, focal length to 0.01 mm, focus to 1 mm, roll to 0.01°.
 */
export function keyframeOf(t: number, pose: MovePose, easing: KeyframeEasing): CameraPathKeyframe {
  return {
    t,
    position: [round(pose.position[0], 4), round(pose.position[1], 4), round(pose.position[2], 4)],
    quaternion: [round(pose.quaternion[0], 6), round(pose.quaternion[1], 6), round(pose.quaternion[2], 6), round(pose.quaternion[3], 6)],
    focalLengthMm: round(pose.focalLengthMm, 2),
    focusDistanceM: round(pose.focusDistanceM, 3),
    fNumber: pose.fNumber,
    rollDeg: round(pose.rollDeg, 2),
    easing,
  };
}

export function copyKeyframe(k: CameraPathKeyframe): CameraPathKeyframe {
  return { ...k, position: [...k.position], quaternion: [...k.quaternion] };
}

function sampleAt(t: number, move: CameraMove, frame: FrameFormat): CameraPathSample {
  const pose = move.poseAt(t);
  const { easing: _easing, ...rounded } = keyframeOf(t, pose, 'linear');
  return { ...rounded, verticalFovDeg: round(fieldOfView(pose.focalLengthMm, frame).verticalDeg, 3) };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  // `+ 0` writes −0 as 0, as JSON does: a document and its file stay equal.
  return Math.round(value * f) / f + 0;
}
