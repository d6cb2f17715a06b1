import { AppConfig, DomainError, ErrorCode, MetricsService } from '@app/core';
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { STUDIO_CONFIG } from '../studio.config';

/** What a refusal tells the client to wait: these requests last seconds, not minutes. */
const RETRY_AFTER_SECONDS = 2;

export interface SlotLimits {
  perSession: number;
  perProcess: number;
}

/**
 * Work of one kind this process does at once, bounded per embed session and in all: a request
 * takes a slot before it costs anything (its body unread, its file unopened) and gives it back
 * when its response closes — finished, failed or abandoned by the client — so no way out of a
 * request keeps one. No waiting: a session over its share is refused with `429 rate_limited`, a
 * full process with `503 unavailable`, both with Retry-After, and the body is not read
 * (the error filter's lingering close drops what the client still sends).
 */
export class ConcurrencySlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limits: SlotLimits,
    private readonly what: string,
  ) {}

  get inUse(): number {
    return this.total;
  }

  /** Slots the session holds in this process. */
  heldBy(sessionId: string): number {
    return this.held.get(sessionId) ?? 0;
  }

  /** Takes one slot of `sessionId` until `res` closes; throws the refusal when none is free. */
  holdUntilClosed(sessionId: string, res: Response): void {
    // A response already closed would never give the slot back.
    if (res.destroyed || res.writableFinished) throw new DomainError(ErrorCode.BadRequest, 'The client closed the request before its end.');
    const mine = this.heldBy(sessionId);
    if (mine >= this.limits.perSession) {
      throw new DomainError(
        ErrorCode.RateLimited,
        `This session already has ${this.limits.perSession} ${this.what} in progress. Retry after the indicated delay.`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    }
    if (this.total >= this.limits.perProcess) {
      throw new DomainError(ErrorCode.Unavailable, `The studio is busy with other ${this.what}. Retry after the indicated delay.`, {
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    }
    this.held.set(sessionId, mine + 1);
    this.total++;
    res.once('close', () => this.release(sessionId));
  }

  private release(sessionId: string): void {
    this.total--;
    const left = this.heldBy(sessionId) - 1;
    if (left <= 0) this.held.delete(sessionId);
    else this.held.set(sessionId, left);
  }
}

/**
 * The studio's two kinds of heavy request: camera-path writes (bodies up to 8 MiB, parsed and
 * stored) and file downloads (artifacts up to hundreds of MiB, streamed). Memory and database
 * connections per process stay bounded whatever one session, or all of them, ask for
 * (docs/embed.md, "The studio's limits").
 */
@Injectable()
export class StudioSlots {
  readonly writes: ConcurrencySlots;
  readonly reads: ConcurrencySlots;

  constructor(config: AppConfig, metrics: MetricsService) {
    const studio = config.slice(STUDIO_CONFIG);
    this.writes = new ConcurrencySlots(studio.writes, 'camera-path writes');
    this.reads = new ConcurrencySlots(studio.reads, 'file downloads');
    // Read at scrape time: a slot that never comes back shows here (the fuzz tests check it).
    const writes = this.writes;
    const reads = this.reads;
    metrics.gauge(
      'studio_write_slots_in_use',
      'Camera-path writes this studio process is reading, checking or storing now',
      [],
      function () {
        this.set(writes.inUse);
      },
    );
    metrics.gauge('studio_read_slots_in_use', 'File downloads this studio process is streaming now', [], function () {
      this.set(reads.inUse);
    });
  }
}
