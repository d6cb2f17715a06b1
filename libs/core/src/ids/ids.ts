import { Injectable } from '@nestjs/common';
import { monotonicFactory } from 'ulid';

/** Prefixes of contract section 3, and `cam` for the studio's saved camera paths (docs/camera-paths.md). */
export const IdPrefix = {
  Scene: 'scn',
  Operation: 'op',
  ImageAsset: 'img',
  EmbedSession: 'es',
  Organization: 'org',
  ApiKey: 'key',
  WebhookEndpoint: 'whe',
  WebhookMessage: 'msg',
  CameraPath: 'cam',
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<IdPrefix, RegExp>(Object.values(IdPrefix).map((p) => [p, new RegExp(`^${p}_${ULID_PATTERN}$`)]));

/** "Syntactically valid" in the contract's sense: the prefix and a 26-character Crockford ULID. */
export function isValidId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && patterns.get(prefix)!.test(value);
}

/**
 * Source of new identifiers. ULIDs sort by creation time, which keeps B-tree inserts local;
 * the monotonic factory keeps ids from one process ordered within the same millisecond.
 */
@Injectable()
export class IdGenerator {
  private readonly next = monotonicFactory();

  generate<P extends IdPrefix>(prefix: P): `${P}_${string}` {
    return `${prefix}_${this.next()}`;
  }
}

/** For code that runs outside Nest's container (the CLI's bootstrap, scripts, tests). */
export const ids = new IdGenerator();
