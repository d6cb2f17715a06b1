import { Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config';
import { DomainError, ErrorCode, isInfrastructureError } from '../errors';
import { InjectRedis, RedisCircuit } from '../redis';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export class RateLimitExceeded extends DomainError {
  constructor(
    readonly state: RateLimitState,
    message = 'The organization exceeded its request rate limit. Retry after the indicated delay.',
  ) {
    super(ErrorCode.RateLimited, message, { retryAfterSeconds: state.resetSeconds });
  }
}

/** What one trip to the shared counter gave: tokens for this process, and the window's state. */
export interface Reservation {
  granted: number;
  /** Tokens left in the shared window after this reservation (this process's unused ones not included). */
  remaining: number;
  msBeforeReset: number;
}

/** Takes `points` tokens from the shared window of `key` (all or what is left of them). */
export type Reserve = (key: string, points: number) => Promise<Reservation>;

/** Each process may hold at most this share of an organization's budget unused. */
export const BATCH_SHARE = 0.01;
export const MAX_BATCH = 100;

interface Allowance {
  tokens: number;
  remaining: number;
  resetAt: number;
  batch: number;
  pending: Promise<void> | null;
}

/**
 * Per-process allowances over a shared fixed window: tokens are reserved from the shared counter
 * in batches and spent locally, so a busy organization costs a Redis round trip every `batch`
 * requests instead of every request. The first reservation of a window takes 1 token and each
 * next one doubles, up to 1 % of the limit (at most 100): a quiet organization is counted
 * exactly, a busy one cheaply. Nothing is ever admitted beyond the limit; the price is that
 * tokens one process reserved and did not use are lost to the others, at most 1 % of the limit
 * per process and window. A window known to be spent is refused locally until it resets.
 */
export class TokenAllowances {
  private readonly allowances = new LRUCache<string, Allowance>({ max: 50_000 });
  private readonly maxBatch: number;

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly reserve: Reserve,
    private readonly now: () => number = Date.now,
  ) {
    this.maxBatch = Math.max(1, Math.min(MAX_BATCH, Math.floor(limit * BATCH_SHARE)));
  }

  /** Spends one token of `key`; throws `RateLimitExceeded` when the window is spent. */
  async consume(key: string): Promise<RateLimitState> {
    let allowance = this.allowances.get(key);
    if (!allowance) {
      allowance = { tokens: 0, remaining: this.limit, resetAt: 0, batch: 1, pending: null };
      this.allowances.set(key, allowance);
    }
    for (;;) {
      const now = this.now();
      if (now >= allowance.resetAt && !allowance.pending) {
        // A new window: whatever was left belongs to the old one.
        allowance.tokens = 0;
        allowance.batch = 1;
      }
      if (allowance.tokens > 0) {
        allowance.tokens--;
        return this.state(allowance.remaining + allowance.tokens, allowance.resetAt - now);
      }
      if (now < allowance.resetAt && allowance.remaining === 0 && !allowance.pending) {
        throw new RateLimitExceeded(this.state(0, allowance.resetAt - now));
      }
      allowance.pending ??= this.refill(key, allowance).finally(() => (allowance.pending = null));
      await allowance.pending;
    }
  }

  /**
   * What this process knows of `key`'s window, without spending or asking Redis: the tokens it
   * holds plus what the shared window had left at its last reservation, or the whole limit for a
   * window it has not seen yet. Other processes may have spent some of it since.
   */
  peek(key: string): RateLimitState {
    const allowance = this.allowances.peek(key);
    const now = this.now();
    if (!allowance || (now >= allowance.resetAt && !allowance.pending)) return this.state(this.limit, this.windowSeconds * 1000);
    return this.state(allowance.remaining + allowance.tokens, allowance.resetAt - now);
  }

  private async refill(key: string, allowance: Allowance): Promise<void> {
    const asked = allowance.batch;
    const r = await this.reserve(key, asked);
    allowance.tokens += r.granted;
    allowance.remaining = r.remaining;
    allowance.resetAt = this.now() + r.msBeforeReset;
    allowance.batch = Math.min(this.maxBatch, asked * 2);
  }

  private state(remaining: number, msBeforeReset: number): RateLimitState {
    return {
      limit: this.limit,
      remaining: Math.max(0, remaining),
      resetSeconds: Math.max(1, Math.ceil(msBeforeReset / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }
}

/** Takes `points` from a rate-limiter-flexible limiter: all of them, or what is left below the limit. */
async function reserveFrom(limiter: RateLimiterAbstract, limit: number, key: string, points: number): Promise<Reservation> {
  try {
    const res = await limiter.consume(key, points);
    return { granted: points, remaining: res.remainingPoints, msBeforeReset: res.msBeforeNext };
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    // Refused as a whole: the counter went past the limit; what was below it is still ours.
    const granted = Math.max(0, Math.min(points, limit - (e.consumedPoints - points)));
    return { granted, remaining: 0, msBeforeReset: e.msBeforeNext };
  }
}

/** One budget: `limit` per `windowSeconds` for each key. */
export interface RateLimitPolicy {
  /** Names its counters in Redis (`<QUEUE_PREFIX>:ratelimit:<name>:<key>`). */
  name: string;
  limit: number;
  windowSeconds: number;
  /** The problem's detail when the budget is spent; safe to show. */
  message: string;
}

/**
 * A budget per key (an organization, an embed session, a client address): a fixed-window counter
 * in Redis, shared by every replica, spent through per-process allowances (above). When Redis is
 * unreachable, frozen or its circuit open, the budget fails open to an in-process limiter with the
 * same numbers: a Redis incident neither blocks callers nor removes the limit, at the price of
 * admitting up to one budget per replica while it lasts (docs/operations.md, "Outages").
 */
export class SharedRateLimit {
  private readonly logger: Logger;
  private readonly allowances: TokenAllowances;

  constructor(
    readonly policy: RateLimitPolicy,
    shared: RateLimiterAbstract,
    local: RateLimiterAbstract,
    circuit: RedisCircuit,
  ) {
    this.logger = new Logger(`RateLimit:${policy.name}`);
    this.allowances = new TokenAllowances(policy.limit, policy.windowSeconds, async (key, points) => {
      try {
        return await circuit.run(() => reserveFrom(shared, policy.limit, key, points));
      } catch (e) {
        if (!isInfrastructureError(e)) throw e;
        return reserveFrom(local, policy.limit, key, points);
      }
    });
  }

  /** The key's budget as this process knows it, spending nothing (`TokenAllowances.peek`). */
  peek(key: string): RateLimitState {
    return this.allowances.peek(key);
  }

  /** Takes one from the key's budget; throws `RateLimitExceeded` (429 with Retry-After) when it is spent. */
  async consume(key: string): Promise<RateLimitState> {
    try {
      return await this.allowances.consume(key);
    } catch (e) {
      if (e instanceof RateLimitExceeded) throw new RateLimitExceeded(e.state, this.policy.message);
      this.logger.warn(`rate limiter unavailable, request allowed: ${(e as Error).message}`);
      const { limit, windowSeconds } = this.policy;
      return { limit, remaining: limit, resetSeconds: windowSeconds, windowSeconds };
    }
  }
}

/** Makes the shared budgets: one Redis client and one circuit breaker per process for all of them. */
@Injectable()
export class RateLimits {
  constructor(
    private readonly config: AppConfig,
    @InjectRedis() private readonly redis: Redis,
    private readonly circuit: RedisCircuit,
  ) {}

  create(policy: RateLimitPolicy, keyPrefix = `${this.config.queuePrefix}:ratelimit:${policy.name}`): SharedRateLimit {
    const local = new RateLimiterMemory({ points: policy.limit, duration: policy.windowSeconds });
    const shared = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix,
      points: policy.limit,
      duration: policy.windowSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: local,
    });
    return new SharedRateLimit(policy, shared, local, this.circuit);
  }
}

/** The organization rate limit of the partner API (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS). */
@Injectable()
export class RateLimiter {
  private readonly budget: SharedRateLimit;

  constructor(config: AppConfig, limits: RateLimits) {
    this.budget = limits.create(
      {
        name: 'organizations',
        limit: config.rateLimit.requests,
        windowSeconds: config.rateLimit.windowSeconds,
        message: 'The organization exceeded its request rate limit. Retry after the indicated delay.',
      },
      // The key prefix it always had, so counters survive an upgrade.
      `${config.queuePrefix}:ratelimit`,
    );
  }

  /** Takes one request from the key's budget; throws `RateLimitExceeded` when it is spent. */
  consume(key: string): Promise<RateLimitState> {
    return this.budget.consume(key);
  }
}
