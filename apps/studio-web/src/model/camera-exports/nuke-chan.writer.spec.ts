import { exportInput, yaw } from './camera-export.fixtures';
import { eulerZXY, writeNukeChan } from './nuke-chan.writer';

describe(writeNukeChan.name, () => {
  const sut = writeNukeChan;

  it('writes frame, translation, ZXY rotation in degrees and vertical field of view, a line per frame', () => {
    const lines = sut(exportInput())
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').map(Number));
    expect(lines).toHaveLength(3);
    expect(lines[0].slice(0, 7)).toEqual([0, 0, 1.6, 5, 0, 0, 0]);
    expect(lines[2].slice(0, 7)).toEqual([2, 1, 1.7, 4, 0, 90, 0]);
    expect(lines[2][7]).toBeCloseTo((2 * Math.atan(20.25 / 2 / 85) * 180) / Math.PI, 5);
  });

  it('reads tilt, pan and roll in the order the rig applies them (yaw, then pitch, then roll)', () => {
    const rad = (d: number) => (d * Math.PI) / 180;
    const axis = (a: [number, number, number], d: number): [number, number, number, number] => {
      const s = Math.sin(rad(d) / 2);
      return [a[0] * s, a[1] * s, a[2] * s, Math.cos(rad(d) / 2)];
    };
    const mul = (a: number[], b: number[]): [number, number, number, number] => [
      a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
      a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
      a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
      a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ];
    // R = Ry(30) · Rx(−20) · Rz(10): Z first, then X, then Y.
    const q = mul(mul(axis([0, 1, 0], 30), axis([1, 0, 0], -20)), axis([0, 0, 1], 10));
    const [rx, ry, rz] = eulerZXY(q);
    expect(rx).toBeCloseTo(-20, 9);
    expect(ry).toBeCloseTo(30, 9);
    expect(rz).toBeCloseTo(10, 9);
  });

  it('unwraps the pan across ±180°, so Nuke never spins the long way', () => {
    const base = exportInput();
    const frames = [170, 190, 210].map((deg, i) => ({ ...base.frames[0], time: i / 24, quaternion: yaw(deg) }));
    const pans = sut({ ...base, frames })
      .trimEnd()
      .split('\n')
      .map((l) => Number(l.split('\t')[5]));
    expect(pans).toEqual([170, 190, 210]);
  });
});
