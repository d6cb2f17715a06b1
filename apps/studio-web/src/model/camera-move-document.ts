import { moveFromPath, type CameraMove, type MovePose } from './camera-move';
import { fieldOfView, type FrameFormat } from './lens';
import {
  cameraPathHeader,
  round,
  roundedPose,
  type CameraPathDocument,
  type CameraPathKeyframe,
  type CameraPathSample,
  type KeyframeEasing,
} from './camera-path';
import { moveFromKeyframes } from './keyframe-move';

/** Baked samples of an authored move: what a tool that reads only `samples` gets. */
const BAKE_FPS = 30;

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
  /** The move they make, as `moveFromKeyframes` built it (the timeline keeps it per change). */
  move: CameraMove;
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
 * samples plays it too. No video (`mimeType` ""), no markers. `baked: false` leaves the samples
 * empty, for a copy that stays in the studio, where the keyframes are the move.
 */
export function documentForMove(move: KeyframedMove, facts: DocumentFacts, { baked = true } = {}): CameraPathDocument {
  const { durationMs } = move.move;
  return {
    ...cameraPathHeader(facts.frame, { ...facts, durationMs, mimeType: '' }),
    samples: baked ? bake(move.move, facts.frame) : [],
    markers: [],
    keyframes: move.keyframes.map(copyKeyframe),
    smoothing: move.smoothing,
  };
}

/** A keyframe of a pose, in the file's precision (`roundedPose`, as takes record it). */
export function keyframeOf(t: number, pose: MovePose, easing: KeyframeEasing): CameraPathKeyframe {
  return { t, ...roundedPose(pose), easing };
}

export function copyKeyframe(k: CameraPathKeyframe): CameraPathKeyframe {
  return { ...k, position: [...k.position], quaternion: [...k.quaternion] };
}

function bake(move: CameraMove, frame: FrameFormat): CameraPathSample[] {
  const frameMs = 1000 / BAKE_FPS;
  const samples: CameraPathSample[] = [];
  const count = Math.floor(move.durationMs / frameMs + 1e-9);
  for (let i = 0; i <= count; i++) samples.push(sampleAt(round(i * frameMs, 1), move, frame));
  if (samples[samples.length - 1].t < move.durationMs) samples.push(sampleAt(move.durationMs, move, frame));
  return samples;
}

function sampleAt(t: number, move: CameraMove, frame: FrameFormat): CameraPathSample {
  const pose = move.poseAt(t);
  return { t, ...roundedPose(pose), verticalFovDeg: round(fieldOfView(pose.focalLengthMm, frame).verticalDeg, 3) };
}
