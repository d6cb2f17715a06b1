import { AppConfig, InjectRedis, SlidingWindowLimiter } from '@app/core';
import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';

/**
 * The fleet's starts at the generation provider, shared through Redis: at most
 * GENERATION_PROVIDER_RATE in any rolling window (World Labs counts starts per account over a
 * rolling window), and none while a provider's 429 pause is in force, whichever worker saw it.
 */
@Injectable()
export class ProviderStarts {
  private readonly limiter: SlidingWindowLimiter;

  constructor(@InjectRedis() redis: Redis, config: AppConfig) {
    const rate = config.generation.providerRate;
    this.limiter = new SlidingWindowLimiter(redis, {
      logKey: `${config.queuePrefix}:provider-starts`,
      pauseKey: `${config.queuePrefix}:provider-paused`,
      limit: rate?.starts ?? 0,
      windowMs: rate?.windowMs ?? 1000,
    });
  }

  /** Up to `wanted` starts now; `waitMs`: when the next one may be had, if not all were. */
  take(wanted: number): Promise<{ granted: number; waitMs: number }> {
    return this.limiter.take(wanted);
  }

  /** The provider asked every caller to wait (429 with Retry-After): no start for `ms`. */
  pause(ms: number): Promise<void> {
    return this.limiter.pause(ms);
  }
}
