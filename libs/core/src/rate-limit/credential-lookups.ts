import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config';
import { MetricsService } from '../metrics';
import { RateLimitState, RateLimits, SharedRateLimit } from './rate-limiter';

/**
 * Credentials (hashes of API keys and embed secrets, embed page ids) a lookup found lately, per
 * process: their next lookups are free. Sized for every credential in use on one replica; an
 * entry lives 15 minutes after its last use.
 */
export const KNOWN_CREDENTIALS = { max: 50_000, ttlMs: 15 * 60_000 } as const;

/** The window of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE. */
const WINDOW_SECONDS = 60;

/**
 * Who asks for a lookup: a client address as `clientAddress()` (libs/core/src/http) makes it,
 * or null for callers that are not network clients (the CLI, tests of the services).
 */
export type LookupCaller = string | null;

/**
 * The per-address limit for unauthenticated traffic. A request whose key or secret is not known
 * to be valid costs a PostgreSQL lookup; nothing else about such a request is bounded, since it
 * belongs to no organization or session. So before each such lookup the caller's address spends
 * one of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE (a budget shared by every api and studio replica
 * through Redis); past it the request is refused (`429 rate_limited`, Retry-After) without
 * reaching the database. A credential a lookup found lately is never counted, so valid keys and
 * secrets are not slowed by a flood from their address.
 */
@Injectable()
export class CredentialLookups {
  private readonly known = new LRUCache<string, true>({ max: KNOWN_CREDENTIALS.max, ttl: KNOWN_CREDENTIALS.ttlMs, updateAgeOnGet: true });
  private readonly budget: SharedRateLimit;
  private readonly outcomes;

  constructor(config: AppConfig, limits: RateLimits, metrics: MetricsService) {
    this.budget = limits.create({
      name: 'lookups',
      limit: config.unknownCredentialLookupsPerMinute,
      windowSeconds: WINDOW_SECONDS,
      message: 'Too many requests with unknown credentials from this address. Retry after the indicated delay.',
    });
    this.outcomes = metrics.counter(
      'credential_lookups_total',
      'Credential checks on the public ports: known (seen valid lately, not counted), counted (an address budget spent on a database lookup), refused (the budget was spent)',
      ['outcome'] as const,
    );
  }

  /**
   * Before a database lookup of `credential` for `caller`: free for a credential found lately,
   * else one of the caller's budget. Throws `RateLimitExceeded` when that budget is spent.
   */
  async admit(caller: LookupCaller, credential: string): Promise<RateLimitState | null> {
    if (caller === null) return null;
    if (this.known.get(credential)) {
      this.outcomes.inc({ outcome: 'known' });
      return null;
    }
    try {
      const state = await this.budget.consume(caller);
      this.outcomes.inc({ outcome: 'counted' });
      return state;
    } catch (e) {
      this.outcomes.inc({ outcome: 'refused' });
      throw e;
    }
  }

  /** After a lookup found `credential` (valid or ended): its next lookups here are free. */
  remember(credential: string): void {
    this.known.set(credential, true);
  }
}
