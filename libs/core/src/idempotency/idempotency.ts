import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../clock';
import { sha256Hex } from '../crypto';
import { DomainError, ErrorCode } from '../errors';
import { OnJob } from '../queue';
import { CoreJob } from './idempotency.jobs';
import { IdempotencyRepository } from './idempotency.repository';

/** How long a key is remembered: the contract's idempotency window. */
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

/**
 * The one entry point of idempotency: `run(tx, request, work)` inside the transaction of the work
 * it protects. It holds a transaction-scoped advisory lock on (organization, key), so a second
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

  async run<T extends object>(tx: EntityManager, request: IdempotentRequest, work: () => Promise<T>): Promise<Idempotent<T>> {
    const { organizationId, key } = request;
    if (!(await this.records.tryLock(tx, organizationId, key))) {
      throw new DomainError(
        ErrorCode.IdempotencyRequestInProgress,
        'A request with this Idempotency-Key is still being handled. Retry after it completes.',
        { retryAfterSeconds: 1 },
      );
    }
    const print = fingerprint(request.scope, request.payload);
    const now = this.clock.now();
    const stored = await this.records.find(tx, organizationId, key);
    if (stored && stored.expiresAt <= now) {
      // Past the window: the key is free again.
      await this.records.delete(tx, organizationId, key);
    } else if (stored) {
      if (stored.fingerprint !== print) {
        throw new DomainError(
          ErrorCode.IdempotencyKeyReused,
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
        );
      }
      return { value: stored.result as T, replayed: true };
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
