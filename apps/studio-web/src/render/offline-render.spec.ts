import type { CameraMove, MovePose } from '../model/camera-move';
import type { ViewportCapture } from '../viewport/studio-viewport';
import type { VideoWriter } from './media-encoding';
import { renderMove, type CaptureTarget, type RenderJob } from './offline-render';
import { planRender, type RenderPlan } from './render-options';

/** A move whose x position is its time in ms, so a drawn pose says which time it came from. */
const move: CameraMove = {
  durationMs: 2000,
  poseAt: (t): MovePose => ({
    position: [t, 0, 0],
    quaternion: [0, 0, 0, 1],
    focalLengthMm: 35,
    focusDistanceM: 5,
    fNumber: 2.8,
    rollDeg: 0,
  }),
};

function plan(overrides: { fps?: number; durationMs?: number } = {}): RenderPlan {
  const result = planRender({
    durationMs: overrides.durationMs ?? 2000,
    fps: overrides.fps ?? 30,
    resolution: '720p',
    container: 'webm',
    aspect: 16 / 9,
    maxDrawingSize: 4096,
  });
  if (!result.ok) throw new Error(result.message);
  return result.plan;
}

/** Records what happens, in order: captures, draws (with the pose's time), frames added, the end. */
function fakes(options: { failAddAt?: number; onDraw?: (index: number) => void } = {}) {
  const log: string[] = [];
  const drawn: number[] = [];
  let added = 0;
  const canvas = {} as HTMLCanvasElement;
  const writer: VideoWriter = {
    add: jest.fn(async (index: number) => {
      log.push(`add ${index}`);
      if (index === options.failAddAt) throw new Error('encoder failed');
      added++;
    }),
    finish: jest.fn(async () => {
      log.push('finish');
      return { video: new Blob([new Uint8Array(added)]), mimeType: 'video/webm; codecs="vp09.00.40.08"' };
    }),
    cancel: jest.fn(async () => void log.push('cancel')),
  };
  const target: CaptureTarget = {
    beginCapture: jest.fn((width: number, height: number): ViewportCapture => {
      log.push(`capture ${width}x${height}`);
      let ended = false;
      return {
        width,
        height,
        canvas,
        draw: async (pose, read, signal) => {
          signal?.throwIfAborted();
          drawn.push(pose.position[0]);
          options.onDraw?.(drawn.length - 1);
          log.push(`draw ${drawn.length - 1}`);
          return read(canvas);
        },
        // Idempotent, as the viewport's.
        end: () => {
          if (!ended) log.push('end');
          ended = true;
        },
      };
    }),
  };
  const media = { openVideoWriter: jest.fn(async () => writer) };
  return { log, drawn, writer, target, media };
}

describe(renderMove.name, () => {
  it('draws frame i at the pose of i / fps, hands it to the encoder in the same step, and gives the view back before the file is closed', async () => {
    const { log, drawn, target, media } = fakes();
    const progress: [number, number][] = [];
    const job: RenderJob = { move, plan: plan() };
    const result = await renderMove(target, media, job, {
      signal: new AbortController().signal,
      onProgress: (d, t) => progress.push([d, t]),
    });

    expect(drawn).toEqual(Array.from({ length: 60 }, (_, i) => (i * 1000) / 30));
    expect(media.openVideoWriter).toHaveBeenCalledWith(expect.anything(), {
      container: job.plan.container,
      width: 1280,
      height: 720,
      fps: 30,
      bitrate: job.plan.bitrate,
    });
    // Each frame's draw is followed at once by its add; the capture ends before the file is finished.
    expect(log.slice(0, 5)).toEqual(['capture 1280x720', 'draw 0', 'add 0', 'draw 1', 'add 1']);
    expect(log.slice(-3)).toEqual(['add 59', 'end', 'finish']);
    expect(progress).toHaveLength(60);
    expect(progress[59]).toEqual([60, 60]);
    expect(result).toMatchObject({
      frames: 60,
      fps: 30,
      width: 1280,
      height: 720,
      durationMs: 2000,
      mimeType: expect.stringMatching(/^video\/webm/),
    });
    expect(result.video.size).toBe(60);
  });

  it('renders every frame whatever the live frame rate: 24 fps over 2 s is 48 frames', async () => {
    const { drawn, target, media } = fakes();
    await renderMove(
      target,
      media,
      { move, plan: plan({ fps: 24 }) },
      { signal: new AbortController().signal, onProgress: () => undefined },
    );
    expect(drawn).toHaveLength(48);
    expect(drawn[47]).toBeCloseTo(1958.333, 3);
  });

  it('cancelled mid-way: stops drawing, drops what was encoded, never finishes the file, gives the view back', async () => {
    const controller = new AbortController();
    const { log, writer, target, media } = fakes({ onDraw: (i) => i === 10 && controller.abort('user') });
    await expect(
      renderMove(target, media, { move, plan: plan() }, { signal: controller.signal, onProgress: () => undefined }),
    ).rejects.toBe('user');
    expect(writer.finish).not.toHaveBeenCalled();
    expect(writer.cancel).toHaveBeenCalledTimes(1);
    expect(log.filter((l) => l.startsWith('draw'))).toHaveLength(11);
    expect(log.at(-1)).toBe('end');
  });

  it('cancelled while the encoder drains: no video comes out', async () => {
    const controller = new AbortController();
    const { writer, target, media } = fakes();
    (writer.finish as jest.Mock).mockImplementation(async () => {
      controller.abort('session_ended');
      return { video: new Blob(['x']), mimeType: 'video/webm' };
    });
    await expect(
      renderMove(target, media, { move, plan: plan() }, { signal: controller.signal, onProgress: () => undefined }),
    ).rejects.toBe('session_ended');
    expect(writer.cancel).toHaveBeenCalled();
  });

  it('an encoder failure ends the render with that error, the file dropped and the view back', async () => {
    const { log, writer, target, media } = fakes({ failAddAt: 5 });
    await expect(
      renderMove(target, media, { move, plan: plan() }, { signal: new AbortController().signal, onProgress: () => undefined }),
    ).rejects.toThrow('encoder failed');
    expect(writer.cancel).toHaveBeenCalled();
    expect(log.at(-1)).toBe('end');
  });

  it('does not take the viewport when cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort('user');
    const { target, media } = fakes();
    await expect(
      renderMove(target, media, { move, plan: plan() }, { signal: controller.signal, onProgress: () => undefined }),
    ).rejects.toBe('user');
    expect(target.beginCapture).not.toHaveBeenCalled();
  });
});
