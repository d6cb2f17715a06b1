import { RateLimits, SharedRateLimit } from '@app/core';
import { Injectable } from '@nestjs/common';

/**
 * What one organization's webhooks may take of the shared fleet (docs/api.md, "Webhooks"): every
 * event fans out to each subscribed endpoint, and every delivery is a signed POST the workers
 * send, so the number of endpoints, the replays and what each endpoint's log keeps are bounded.
 */
export const WEBHOOK_LIMITS = {
  /** Live (not deleted) endpoints of one organization, enabled or not; the next is `409 limit_exceeded`. */
  endpointsPerOrganization: 20,
  /** `:replay` calls per organization and minute, across every api replica. */
  replaysPerMinute: 30,
  /** Attempts kept on one delivery, the newest; the default retry schedule makes 8, the rest come from replays. */
  attemptsPerDelivery: 20,
  /** Deliveries kept per endpoint, the newest; older finished ones are pruned by webhooks.purge-old. */
  deliveriesPerEndpoint: 10_000,
  /** Page sizes of the lists (`limit`). */
  page: { default: 50, max: 100 },
} as const;

/** The organization's replay budget (WEBHOOK_LIMITS.replaysPerMinute), shared through Redis. */
@Injectable()
export class WebhookReplayBudget {
  private readonly limit: SharedRateLimit;

  constructor(limits: RateLimits) {
    this.limit = limits.create({
      name: 'webhook-replay',
      limit: WEBHOOK_LIMITS.replaysPerMinute,
      windowSeconds: 60,
      message: `An organization may replay at most ${WEBHOOK_LIMITS.replaysPerMinute} webhook deliveries a minute. Retry after the indicated delay.`,
    });
  }

  /** Takes one replay; throws `RateLimitExceeded` (429 `rate_limited`, Retry-After) when the minute's are spent. */
  async spend(organizationId: string): Promise<void> {
    await this.limit.consume(organizationId);
  }
}
