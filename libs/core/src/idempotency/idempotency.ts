import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../clock';
import { sha256Hex } from '../crypto';
import { DomainError, ErrorCode } from '../errors';
import { OnJob } from '../queue';
import { CoreJob } from './idempotency.jobs';
import { IdempotencyRepository } from './idempotency.repository';
import { Tx } from '../database/unit-of-work';

/** How long a key is remembered: the idempotency window of docs/api.md ("Idempotency", 24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Expired records deleted per statement by the purge job. */
const PURGE_BATCH = 1000;

/**
 * What identifies an idempotent request: the caller's key, and the scope it was sent to (the api
 * uses the method and route template, `POST /v1/scenes`). The scope is part of the fingerprint:
 * a key reused on another route is refused as reused, never answered with the other's result.
 */
export interface IdempotencyKey {
  key: string;
  scope: string;
}

/** The request a piece of work answers, as `IdempotentRequests.run` compares it. */
export interface IdempotentRequest extends IdempotencyKey {
  organizationId: string;
  /** What the request asks for (the validated body): the same key with another payload is refused. */
  payload: Record<string, unknown>;
}

/** The work's result, first computed or replayed. */
export interface Idempotent<T> {
  value: T;
  replayed: boolean;
}

/** A stable digest of what the request asks for; key order and absent-vs-null do not matter. */
export function fingerprint(route: string, body: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(body)
      .filter((k) => body[k] !== undefined && body[k] !== null)
      .sort()
      .map((k) => [k, body[k]]),
  );
  return sha256Hex(`${route}\n${canonical}`);
}

function inProgress(): DomainError {
  return new DomainError(
    ErrorCode.IdempotencyRequestInProgress,
    'A request with this Idempotency-Key is still being handled. Retry after it completes.',
    { retryAfterSeconds: 1 },
  );
}

/** The stored answer, when the request is the one that stored it; else `idempotency_key_reused`. */
function replayOf<T>(stored: { fingerprint: string; result: object }, print: string): T {
  if (stored.fingerprint !== print) {
    throw new DomainError(
      ErrorCode.IdempotencyKeyReused,
      'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
    );
  }
  return stored.result as T;
}

/**
 * The entry points of idempotency: `run(tx, request, work)` inside the transaction of the work
 * it protects (and `runKnownAnswer`, the same in fewer round trips when the answer is known first). It holds a transaction-scoped advisory lock on (organization, key), so a second
 * request with the same key while the first is running gets 409 at once instead of waiting;
 * replays the stored result of an earlier request with the same payload; refuses the same key
 * with another payload; otherwise runs the work and stores its result, which commits (or
 * vanishes) together with the work. Failed work leaves no record, so it does not use up its key.
 */
@Injectable()
export class IdempotentRequests {
  private readonly logger = new Logger(IdempotentRequests.name);

  constructor(
    private readonly records: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  async run<T extends object>(tx: Tx, request: IdempotentRequest, work: () => Promise<T>): Promise<Idempotent<T>> {
    const { organizationId, key } = request;
    if (!(await this.records.tryLock(tx, organizationId, key))) throw inProgress();
    const print = fingerprint(request.scope, request.payload);
    const now = this.clock.now();
    // Read after the lock is held, in a statement of its own: it sees a record committed by the
    // request that held the lock before.
    const stored = await this.records.find(tx, organizationId, key);
    if (stored && stored.expiresAt <= now) {
      // Past the window: the key is free again.
      await this.records.delete(tx, organizationId, key);
    } else if (stored) {
      return { value: replayOf<T>(stored, print), replayed: true };
    }
    const value = await work();
    await this.records.insert(tx, {
      organizationId,
      key,
      fingerprint: print,
      result: value,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
    });
    return { value, replayed: false };
  }

  /**
   * `run` for work whose answer is known before it runs (its ids made up front): the lock, the
   * lookup and the record are one statement, before the work, instead of three round trips around
   * it. The record commits with the work, or vanishes with it when the work throws (the caller's
   * transaction rolls back), so failed work still does not use up its key. `answer` is what the
   * work's success answers; a replay answers the first request's.
   */
  async runKnownAnswer<T extends object>(tx: Tx, request: IdempotentRequest, answer: T, work: () => Promise<void>): Promise<Idempotent<T>> {
    const { organizationId, key } = request;
    const print = fingerprint(request.scope, request.payload);
    const now = this.clock.now();
    const claim = await this.records.claim(tx, {
      organizationId,
      key,
      fingerprint: print,
      result: answer,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
    });
    if (!claim.locked) throw inProgress();
    if (claim.claimed) {
      await work();
      return { value: answer, replayed: false };
    }
    // A record committed after this statement began is read now (the instant between them).
    const stored = claim.stored ?? (await this.records.find(tx, organizationId, key));
    if (!stored || stored.expiresAt <= now) throw inProgress();
    return { value: replayOf<T>(stored, print), replayed: true };
  }

  @OnJob(CoreJob.IdempotencyPurgeExpired)
  async purgeExpired(): Promise<{ deleted: number }> {
    const now = this.clock.now();
    let deleted = 0;
    for (let i = 0; i < 50; i++) {
      const n = await this.records.deleteExpired(now, PURGE_BATCH);
      deleted += n;
      if (n < PURGE_BATCH) break;
    }
    if (deleted > 0) this.logger.log(`purged ${deleted} expired idempotency record(s)`);
    return { deleted };
  }
}
