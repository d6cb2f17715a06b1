import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';

/**
 * An id's prefix (`scn`, `op`, …). Each lib declares its own in `<lib>.ids.ts` (docs/api.md, "Identifiers");
 * core only makes and checks ids: lowercase letters, then `_` and a ULID.
 */
export type IdPrefix = string;

const PREFIX = /^[a-z]{1,8}$/;
const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<IdPrefix, RegExp>();

function patternOf(prefix: IdPrefix): RegExp {
  let pattern = patterns.get(prefix);
  if (!pattern) {
    pattern = new RegExp(idPattern(prefix));
    patterns.set(prefix, pattern);
  }
  return pattern;
}

/** The regular expression (its source) of a syntactically valid id of `prefix`: what API descriptions state as `pattern`. */
export function idPattern(prefix: IdPrefix): string {
  // A prefix with regex characters would make every id of it "valid" or none: refuse it.
  if (!PREFIX.test(prefix)) throw new Error(`id prefix "${prefix}" is not 1 to 8 lowercase letters`);
  return `^${prefix}_${ULID_PATTERN}$`;
}

/** "Syntactically valid" as docs/api.md says it: the prefix and a 26-character Crockford ULID. */
export function isValidId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && patternOf(prefix).test(value);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID is a 48-bit millisecond time (10 characters) and an 80-bit random part (16 characters). */
const RANDOM_LIMIT = 1n << 80n;
/**
 * Within one millisecond the random part steps forward by at least this, plus 64 fresh random
 * bits: ids stay in creation order, yet knowing one id tells nothing usable about the next (a
 * guess hits with odds of 2^-64), where ulid's monotonic factory added exactly 1.
 */
export const MIN_ID_STEP = 1n << 64n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function randomBigInt(bytes: Buffer): bigint {
  return BigInt(`0x${bytes.toString('hex')}`);
}

/**
 * ULID bodies that sort by creation time within this process, also within one millisecond (some
 * lists break ties of equal timestamps by id), without being adjacent. When a step would
 * overflow the random part, the id takes the next millisecond and a fresh random part, so the
 * order holds; its time is then at most a few milliseconds ahead. A clock that goes back is
 * treated as the same millisecond, for the same reason.
 */
export function ulidFactory(now: () => number = () => Date.now(), random: (n: number) => Buffer = randomBytes): () => string {
  let lastTime = -1;
  let lastRandom = 0n;
  return () => {
    let time = now();
    if (time <= lastTime) {
      const next = lastRandom + MIN_ID_STEP + randomBigInt(random(8));
      if (next < RANDOM_LIMIT) {
        lastRandom = next;
        return encode(BigInt(lastTime), 10) + encode(next, 16);
      }
      time = lastTime + 1;
    }
    lastTime = time;
    lastRandom = randomBigInt(random(10));
    return encode(BigInt(time), 10) + encode(lastRandom, 16);
  };
}

/**
 * Source of new identifiers. ULIDs sort by creation time, which keeps B-tree inserts local; see
 * `ulidFactory` for why ids of one millisecond are ordered but far apart.
 */
@Injectable()
export class IdGenerator {
  private readonly next = ulidFactory();

  generate<P extends IdPrefix>(prefix: P): `${P}_${string}` {
    patternOf(prefix);
    return `${prefix}_${this.next()}`;
  }
}

/** For code that runs outside Nest's container (the CLI's bootstrap, scripts, tests). */
export const ids = new IdGenerator();
