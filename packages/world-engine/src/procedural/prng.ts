import { createHash } from 'node:crypto';

/**
 * A 32-bit seed from any list of strings. The parts are length-prefixed so that
 * ("ab", "c") and ("a", "bc") give different seeds.
 */
export function seedFrom(...parts: string[]): number {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest().readUInt32BE(0);
}

/**
 * mulberry32: a tiny, fast PRNG with a 32-bit state. Not cryptographic — it only has to make the
 * same scene from the same seed on every machine, which Math.random cannot.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A fresh 32-bit seed, to derive an independent stream. */
  seed(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
}

/** Rounds to `digits` decimals so specs serialise compactly and identically. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  const r = Math.round(value * f) / f;
  // -0 would serialise as 0 anyway, but keep values canonical for equality checks.
  return r === 0 ? 0 : r;
}
