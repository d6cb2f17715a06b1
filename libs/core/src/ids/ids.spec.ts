import { randomBytes } from 'node:crypto';
import { IdGenerator, isValidId, MIN_ID_STEP, ulidFactory } from './ids';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function decode(text: string): bigint {
  let value = 0n;
  for (const c of text) value = value * 32n + BigInt(CROCKFORD.indexOf(c));
  return value;
}

/** The millisecond and the 80-bit random part of a ULID body. */
function parts(body: string): { time: number; random: bigint } {
  return { time: Number(decode(body.slice(0, 10))), random: decode(body.slice(10)) };
}

const MS = Date.UTC(2025, 0, 2, 3, 4, 5, 6);

describe('ulidFactory', () => {
  it('makes thousands of ids in one millisecond that are valid, strictly increasing and far apart', () => {
    const sut = ulidFactory(() => MS);
    const bodies = Array.from({ length: 5000 }, () => sut());

    for (const body of bodies) expect(isValidId('es', `es_${body}`)).toBe(true);
    for (let i = 1; i < bodies.length; i++) {
      expect(bodies[i] > bodies[i - 1]).toBe(true);
      const [a, b] = [parts(bodies[i - 1]), parts(bodies[i])];
      // A step that overflows the random part moves on to the next millisecond, fresh.
      if (b.time === a.time) expect(b.random - a.random).toBeGreaterThanOrEqual(2n ** 40n);
      else expect(b.time).toBe(a.time + 1);
    }
    expect(parts(bodies[0]).time).toBe(MS);
  });

  it('steps by at least 2^64 and adds 64 fresh random bits each time', () => {
    const steps = new Set<bigint>();
    // The first random part starts low, so no step overflows.
    let first = true;
    const sut = ulidFactory(
      () => MS,
      (n) => {
        if (!first) return randomBytes(n);
        first = false;
        return Buffer.alloc(n);
      },
    );
    let previous = parts(sut()).random;
    for (let i = 0; i < 1000; i++) {
      const { time, random } = parts(sut());
      expect(time).toBe(MS);
      const step = random - previous;
      expect(step).toBeGreaterThanOrEqual(MIN_ID_STEP);
      expect(step).toBeLessThan(2n * MIN_ID_STEP);
      steps.add(step);
      previous = random;
    }
    expect(steps.size).toBe(1000);
  });

  it('takes the next millisecond and a fresh random part when a step would overflow', () => {
    const sut = ulidFactory(
      () => MS,
      (n) => Buffer.alloc(n, 0xff),
    );
    const a = sut();
    const b = sut();
    expect(parts(a)).toEqual({ time: MS, random: 2n ** 80n - 1n });
    expect(parts(b)).toEqual({ time: MS + 1, random: 2n ** 80n - 1n });
    expect(b > a).toBe(true);
  });

  it('keeps the order when the clock goes back', () => {
    const times = [MS, MS - 5, MS + 1];
    const sut = ulidFactory(() => times.shift()!);
    const [a, b, c] = [sut(), sut(), sut()];
    expect(parts(b).time).toBe(MS);
    expect(b > a).toBe(true);
    expect(c > b).toBe(true);
    expect(parts(c).time).toBe(MS + 1);
  });
});

describe(IdGenerator.name, () => {
  it('prefixes ids as the docs list them', () => {
    const sut = new IdGenerator();
    for (const prefix of ['scn', 'op', 'img', 'es', 'org', 'key', 'whe', 'msg', 'cam'])
      expect(isValidId(prefix, sut.generate(prefix))).toBe(true);
    expect(isValidId('op', sut.generate('scn'))).toBe(false);
  });

  it('refuses a prefix that is not a few lowercase letters, which would bend the id pattern', () => {
    expect(() => new IdGenerator().generate('s.n')).toThrow('lowercase letters');
    expect(() => isValidId('', 'x')).toThrow('lowercase letters');
  });
});
