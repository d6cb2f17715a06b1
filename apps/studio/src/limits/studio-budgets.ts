import { AppConfig, RateLimits, RateLimitState, SharedRateLimit } from '@app/core';
import { Injectable } from '@nestjs/common';
import { STUDIO_CONFIG } from '../studio.config';

/**
 * The studio's write budgets per embed session (docs/embed.md, "The studio's limits"), counted in Redis so every
 * studio replica shares them: STUDIO_EDITS_PER_HOUR edit turns (edits and reverts, each possibly a
 * paid provider job) and STUDIO_WRITES_PER_MINUTE other writes (camera paths, saved views). Past
 * either, `429 rate_limited` with Retry-After (the seconds until the window ends).
 */
@Injectable()
export class StudioBudgets {
  private readonly edits: SharedRateLimit;
  private readonly writes: SharedRateLimit;

  constructor(config: AppConfig, limits: RateLimits) {
    const studio = config.slice(STUDIO_CONFIG);
    this.edits = limits.create({
      name: 'studio-edits',
      limit: studio.editsPerHour,
      windowSeconds: 3600,
      message: `This session reached its limit of ${studio.editsPerHour} edits per hour. Retry after the indicated delay.`,
    });
    this.writes = limits.create({
      name: 'studio-writes',
      limit: studio.writesPerMinute,
      windowSeconds: 60,
      message: `This session reached its limit of ${studio.writesPerMinute} changes per minute. Retry after the indicated delay.`,
    });
  }

  /** One edit turn of the session, spent once the turn is sure to start (ScenesService's admission). */
  spendEdit(sessionId: string): Promise<RateLimitState> {
    return this.edits.consume(sessionId);
  }

  /** One other write of the session, spent before the route runs. */
  spendWrite(sessionId: string): Promise<RateLimitState> {
    return this.writes.consume(sessionId);
  }
}
