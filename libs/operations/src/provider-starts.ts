import { AppConfig, InjectRedis, SlidingWindowLimiter } from '@app/core';
import { GENERATION_CONFIG } from '@app/generation';
import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';

/**
 * The fleet's starts at the generation provider, shared through Redis: at most
 * GENERATION_PROVIDER_RATE in any rolling window (World Labs counts starts per account over a
 * rolling window), and none while a provider's 429 pause is in force, whichever worker saw it.
 * A start is taken by the worker right before its submit, so the window counts what reaches the
 * provider, when it does; admission only looks (`available`) so as not to admit more than can start.
 */
/**
 * Our window is this much longer than the provider's: a start is taken here a few milliseconds
 * before the provider sees it, and those milliseconds vary (a new connection, a busy event
 * loop), so two starts a window apart here could land a little less than a window apart there.
 */
export const PROVIDER_WINDOW_MARGIN_MS = 1000;

@Injectable()
export class ProviderStarts {
  private readonly limiter: SlidingWindowLimiter;

  constructor(@InjectRedis() redis: Redis, config: AppConfig) {
    const rate = config.slice(GENERATION_CONFIG).providerRate;
    this.limiter = new SlidingWindowLimiter(redis, {
      logKey: `${config.queuePrefix}:provider-starts`,
      pauseKey: `${config.queuePrefix}:provider-paused`,
      limit: rate?.starts ?? 0,
      windowMs: (rate?.windowMs ?? 0) + PROVIDER_WINDOW_MARGIN_MS,
    });
  }

  /** One start, now: 0 when taken, else how long until one may be had (the window's next free place, or the pause's end). */
  async take(): Promise<number> {
    const { granted, waitMs } = await this.limiter.take(1);
    return granted === 1 ? 0 : Math.max(1, waitMs);
  }

  /** How many starts could be taken now (Infinity without a rate), and when the next frees if none. */
  available(): Promise<{ available: number; waitMs: number }> {
    return this.limiter.available();
  }

  /** The provider asked every caller to wait (429 with Retry-After): no start for `ms`. */
  pause(ms: number): Promise<void> {
    return this.limiter.pause(ms);
  }
}
