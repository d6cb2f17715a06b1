import { Prng, round, seedFrom } from './prng';

describe(Prng.name, () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const a = new Prng(123);
    const b = new Prng(123);
    const c = new Prng(124);
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
  });

  it('stays within its ranges', () => {
    const sut = new Prng(9);
    for (let i = 0; i < 1000; i++) {
      const x = sut.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      const n = sut.int(3, 5);
      expect([3, 4, 5]).toContain(n);
    }
  });

  it('is roughly uniform', () => {
    const sut = new Prng(77);
    const buckets = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) buckets[Math.floor(sut.next() * 4)]++;
    for (const b of buckets) expect(b).toBeGreaterThan(850);
  });
});

describe(seedFrom.name, () => {
  it('is stable and separates its parts', () => {
    expect(seedFrom('a', 'b')).toBe(seedFrom('a', 'b'));
    expect(seedFrom('ab', 'c')).not.toBe(seedFrom('a', 'bc'));
    expect(seedFrom('x')).toBeGreaterThanOrEqual(0);
    expect(seedFrom('x')).toBeLessThanOrEqual(0xffffffff);
  });
});

describe(round.name, () => {
  it('rounds to the given decimals and never returns -0', () => {
    expect(round(1.23456)).toBe(1.235);
    expect(round(1.23456, 1)).toBe(1.2);
    expect(Object.is(round(-0.0001), 0)).toBe(true);
  });
});
