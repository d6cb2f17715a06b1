import type { CameraMove, MovePose } from '../model/camera-move';
import { frameFormat } from '../model/lens';
import type { ViewportCapture } from '../viewport/studio-viewport';
import { cameraExportInput } from './camera-export';
import { renderMove, type CaptureTarget } from './offline-render';
import { planRender } from './render-options';

/** A move whose every value depends on its time, so each frame's pose says when it was taken. */
const move: CameraMove = {
  durationMs: 1500,
  poseAt: (t): MovePose => ({
    position: [t / 1000, 1.6, -t / 500],
    quaternion: [0, Math.sin(t / 4000), 0, Math.cos(t / 4000)],
    focalLengthMm: 35 + t / 100,
    focusDistanceM: 2 + t / 1000,
    fNumber: t < 750 ? 2.8 : 4,
    rollDeg: 0,
  }),
};

/** The poses the offline render hands the viewport, frame by frame, for a move at `fps`. */
async function renderedPoses(fps: number): Promise<MovePose[]> {
  const poses: MovePose[] = [];
  const planned = planRender({
    durationMs: move.durationMs,
    fps,
    resolution: '720p',
    container: 'webm',
    aspect: 16 / 9,
    maxDrawingSize: 4096,
  });
  if (!planned.ok) throw new Error(planned.message);
  const canvas = {} as HTMLCanvasElement;
  const target: CaptureTarget = {
    beginCapture: (width, height): ViewportCapture => ({
      width,
      height,
      canvas,
      draw: async (pose, read) => {
        poses.push(pose);
        return read(canvas);
      },
      end: () => undefined,
    }),
  };
  const media = {
    openVideoWriter: async () => ({
      add: async () => undefined,
      finish: async () => ({ video: new Blob([]), mimeType: 'video/webm' }),
      cancel: async () => undefined,
    }),
  };
  await renderMove(target, media, { move, plan: planned.plan }, { signal: new AbortController().signal, onProgress: () => undefined });
  return poses;
}

describe(cameraExportInput.name, () => {
  const sut = cameraExportInput;
  const frame = frameFormat('super-35', '2.39:1');

  it.each([24, 25, 30, 60])('exports at %i fps exactly the frames and poses the offline render draws', async (fps) => {
    const drawn = await renderedPoses(fps);
    const input = sut(move, { fps, frame, clipping: { near: 0.1, far: 500 } });
    expect(input.frames).toHaveLength(drawn.length);
    input.frames.forEach((f, i) => {
      expect(f.time).toBeCloseTo(i / fps, 12);
      expect(f.position).toEqual(drawn[i].position);
      expect(f.quaternion).toEqual(drawn[i].quaternion);
      expect(f.focalLengthMm).toBe(drawn[i].focalLengthMm);
      expect(f.focusDistanceM).toBe(drawn[i].focusDistanceM);
      expect(f.fStop).toBe(drawn[i].fNumber);
    });
  });

  it("hands on the frame's gate as the sensor, the frame rate and the clipping range", () => {
    const input = sut(move, { fps: 24, frame, clipping: { near: 0.1, far: 500 } });
    // Super 35 (24.89 × 18.66 mm) cut to 2.39:1 keeps its width.
    expect(input.sensor.widthMm).toBeCloseTo(24.89, 6);
    expect(input.sensor.heightMm).toBeCloseTo(24.89 / 2.39, 6);
    expect(input).toMatchObject({ fps: 24, clipping: { near: 0.1, far: 500 } });
  });
});
