import type { CameraExportInput } from '../model/camera-exports/camera-export.types';
import type { CameraMove } from '../model/camera-move';
import type { FrameFormat } from '../model/lens';
import { frameCount, frameTimeMs } from './render-options';

/**
 * The one adapter from the studio's moves to the camera-export writers' plain input: frame i is
 * the move's pose at i / fps — `frameCount` and `frameTimeMs` are what the offline render
 * (offline-render.ts) draws, so an exported camera and a render at the same rate agree frame for
 * frame. The sensor handed on is the frame's gate (the sensor cut to the aspect): what the
 * picture shows and what the studio's field of view is computed from (model/lens.ts).
 */
export function cameraExportInput(
  move: CameraMove,
  options: { fps: number; frame: FrameFormat; clipping: { near: number; far: number } },
): CameraExportInput {
  const { fps, frame } = options;
  const count = frameCount(move.durationMs, fps);
  const frames = Array.from({ length: count }, (_, index) => {
    const pose = move.poseAt(frameTimeMs(index, fps));
    return {
      time: index / fps,
      position: [...pose.position] as [number, number, number],
      quaternion: [...pose.quaternion] as [number, number, number, number],
      focalLengthMm: pose.focalLengthMm,
      focusDistanceM: pose.focusDistanceM,
      fStop: pose.fNumber,
    };
  });
  return {
    frames,
    sensor: { widthMm: frame.film.width, heightMm: frame.film.height },
    fps,
    clipping: { ...options.clipping },
  };
}
