import fc from 'fast-check';
import type { MovePose } from '../../model/camera-move';
import { MAX_DURATION_MS } from '../../model/camera-path-file';
import { DEFAULT_DURATION_MS, MIN_DURATION_MS, Timeline, seconds } from './timeline';

const pose = (x: number): MovePose => ({
  position: [x, 1.6, 0],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 5,
  fNumber: 2.8,
  rollDeg: 0,
});

describe(Timeline.name, () => {
  let sut: Timeline;

  beforeEach(() => {
    sut = new Timeline();
  });

  it('starts empty, 10 s long, half smoothed, with no move to play', () => {
    expect(sut.keyframes).toEqual([]);
    expect(sut.durationMs).toBe(DEFAULT_DURATION_MS);
    expect(sut.smoothing).toBe(0.5);
    expect(sut.move).toBeNull();
    expect(sut.play()).toBe(false);
  });

  it('adds keyframes at the playhead, in time order, selecting each', () => {
    sut.seek(4000);
    expect(sut.addAtPlayhead(pose(4))).toEqual({ index: 0, replaced: false });
    sut.seek(1000.4);
    expect(sut.addAtPlayhead(pose(1))).toEqual({ index: 0, replaced: false });
    sut.seek(2500);
    expect(sut.addAtPlayhead(pose(2), 'hold')).toEqual({ index: 1, replaced: false });
    expect(sut.keyframes.map((k) => [k.t, k.position[0], k.easing])).toEqual([
      [1000, 1, 'ease-in-out'],
      [2500, 2, 'hold'],
      [4000, 4, 'ease-in-out'],
    ]);
    expect(sut.selected).toBe(1);
  });

  it('gives a keyframe already at the playhead the new pose, keeping its easing', () => {
    sut.seek(1000);
    sut.addAtPlayhead(pose(1), 'ease-out');
    expect(sut.addAtPlayhead(pose(7))).toEqual({ index: 0, replaced: true });
    expect(sut.keyframes).toHaveLength(1);
    expect(sut.keyframes[0]).toMatchObject({ t: 1000, position: [7, 1.6, 0], easing: 'ease-out' });
  });

  it('updates, retimes, re-eases and removes keyframes, counting each change', () => {
    for (const t of [0, 1000, 2000]) {
      sut.seek(t);
      sut.addAtPlayhead(pose(t / 1000));
    }
    const before = sut.revision;
    expect(sut.update(1, pose(9))).toBe(true);
    expect(sut.keyframes[1].position[0]).toBe(9);
    sut.select(0);
    expect(sut.retime(0, 2500)).toEqual({ ok: true });
    expect(sut.keyframes.map((k) => k.t)).toEqual([1000, 2000, 2500]);
    expect(sut.selected).toBe(2);
    expect(sut.setEasing(2, 'linear')).toBe(true);
    expect(sut.remove(0)).toBe(true);
    expect(sut.selected).toBe(1);
    expect(sut.revision).toBe(before + 4);
  });

  it('refuses a time outside the move or on another keyframe', () => {
    sut.seek(0);
    sut.addAtPlayhead(pose(0));
    sut.seek(1000);
    sut.addAtPlayhead(pose(1));
    expect(sut.retime(0, 1000)).toEqual({ ok: false, reason: 'Another keyframe is at 1.00 s.' });
    expect(sut.retime(0, 10_001)).toEqual({ ok: false, reason: "A keyframe's time is from 0 to 10.00 s (the move's duration)." });
    expect(sut.retime(0, Number.NaN).ok).toBe(false);
    expect(sut.retime(5, 10).ok).toBe(false);
  });

  it('never makes the move shorter than its last keyframe, nor longer than an hour', () => {
    sut.seek(6000);
    sut.addAtPlayhead(pose(0));
    expect(sut.setDuration(3000)).toBe(6000);
    expect(sut.setDuration(8000)).toBe(8000);
    expect(sut.setDuration(1e12)).toBe(MAX_DURATION_MS);
    sut.clear();
    expect(sut.setDuration(0)).toBe(MIN_DURATION_MS);
  });

  it('loads a move whole, dropping the selection and rewinding', () => {
    sut.seek(3000);
    sut.addAtPlayhead(pose(0));
    const keys = [sut.keyframes[0], { ...sut.keyframes[0], t: 7000 }];
    sut.load(keys, 0.2, 5000);
    expect(sut.durationMs).toBe(7000);
    expect(sut.smoothing).toBe(0.2);
    expect(sut.playheadMs).toBe(0);
    expect(sut.selected).toBeNull();
    keys[0].position[0] = 99;
    expect(sut.keyframes[0].position[0]).toBe(0);
  });

  it('caches the move until something changes', () => {
    sut.addAtPlayhead(pose(0));
    const move = sut.move;
    sut.seek(500);
    sut.select(0);
    expect(sut.move).toBe(move);
    sut.setSmoothing(0.9);
    expect(sut.move).not.toBe(move);
  });

  it('finds the keyframes either side of the playhead', () => {
    for (const t of [1000, 2000]) {
      sut.seek(t);
      sut.addAtPlayhead(pose(0));
    }
    sut.seek(1500);
    expect([sut.neighbour(-1), sut.neighbour(1)]).toEqual([0, 1]);
    sut.seek(1000);
    expect([sut.neighbour(-1), sut.neighbour(1)]).toEqual([null, 1]);
    sut.seek(2000);
    expect(sut.neighbour(1)).toBeNull();
  });

  describe('playback', () => {
    beforeEach(() => {
      sut.addAtPlayhead(pose(0));
      sut.setDuration(2000);
    });

    it('plays from the playhead to the end, then stops there', () => {
      sut.seek(500);
      expect(sut.play()).toBe(true);
      expect(sut.advance(1)).toBe(true);
      expect(sut.playheadMs).toBe(1500);
      expect(sut.advance(1)).toBe(false);
      expect(sut.playheadMs).toBe(2000);
      expect(sut.playing).toBe(false);
    });

    it('starts again from the beginning when played at the end; stop rewinds, pause does not', () => {
      sut.seek(2000);
      sut.play();
      expect(sut.playheadMs).toBe(0);
      sut.advance(0.25);
      sut.pause();
      expect(sut.advance(1)).toBe(false);
      expect(sut.playheadMs).toBe(250);
      sut.stop();
      expect(sut.playheadMs).toBe(0);
    });

    it('plays at the same speed whatever the frame rate', () => {
      fc.assert(
        fc.property(fc.array(fc.double({ min: 0.001, max: 0.25, noNaN: true }), { minLength: 1, maxLength: 40 }), (frames) => {
          const total = frames.reduce((a, b) => a + b, 0);
          sut.setDuration(MAX_DURATION_MS);
          sut.stop();
          sut.play();
          for (const dt of frames) sut.advance(dt);
          expect(sut.playheadMs).toBeCloseTo(total * 1000, 6);
        }),
      );
    });
  });
});

describe(seconds.name, () => {
  it('shows milliseconds as seconds to the hundredth', () => {
    expect(seconds(1234)).toBe('1.23 s');
    expect(seconds(0)).toBe('0.00 s');
  });
});
