import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config';
import { DomainError, ErrorCode } from '../errors';
import { InjectRedis } from '../redis';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export class RateLimitExceeded extends DomainError {
  constructor(readonly state: RateLimitState) {
    super(ErrorCode.RateLimited, 'The organization exceeded its request rate limit. Retry after the indicated delay.', {
      retryAfterSeconds: state.resetSeconds,
    });
  }
}

/**
 * A fixed-window counter per organization in Redis, shared by every api replica. When Redis is
 * unreachable an in-process limiter with the same budget takes over, so a Redis blip neither
 * blocks partners nor removes the limit entirely.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly limiter: RateLimiterRedis;
  private readonly limit: number;
  private readonly windowSeconds: number;

  constructor(config: AppConfig, @InjectRedis() redis: Redis) {
    this.limit = config.rateLimit.requests;
    this.windowSeconds = config.rateLimit.windowSeconds;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.queuePrefix}:ratelimit`,
      points: this.limit,
      duration: this.windowSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points: this.limit, duration: this.windowSeconds }),
    });
  }

  /** Takes one request from the key's budget; throws `RateLimitExceeded` when it is spent. */
  async consume(key: string): Promise<RateLimitState> {
    try {
      return this.state(await this.limiter.consume(key, 1));
    } catch (e) {
      if (e instanceof RateLimiterRes) throw new RateLimitExceeded(this.state(e));
      this.logger.warn(`rate limiter unavailable, request allowed: ${(e as Error).message}`);
      return { limit: this.limit, remaining: this.limit, resetSeconds: this.windowSeconds, windowSeconds: this.windowSeconds };
    }
  }

  private state(res: RateLimiterRes): RateLimitState {
    return {
      limit: this.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'ratelimit-limit': String(s.limit),
    'ratelimit-remaining': String(s.remaining),
    'ratelimit-reset': String(s.resetSeconds),
    'ratelimit-policy': `${s.limit};w=${s.windowSeconds}`,
  };
}

@Global()
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
