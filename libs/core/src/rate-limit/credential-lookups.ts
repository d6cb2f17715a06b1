import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config';
import { MetricsService } from '../metrics';
import { RateLimitExceeded, RateLimits, SharedRateLimit } from './rate-limiter';

/**
 * Credentials (hashes of API keys and embed secrets, embed page ids) a lookup found lately, per
 * process: their next lookups are free. Sized for every credential in use on one replica; an
 * entry lives 15 minutes after its last use.
 */
export const KNOWN_CREDENTIALS = { max: 50_000, ttlMs: 15 * 60_000 } as const;

/** The window of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE. */
const WINDOW_SECONDS = 60;

/**
 * Lookups of credentials not known here that one client address may have in flight at once in
 * one process; more wait for one of them to end. It bounds what concurrent misses can overshoot
 * the budget by (below), and a flood's share of the database pool.
 */
export const LOOKUPS_IN_FLIGHT_PER_ADDRESS = 16;

/**
 * Who asks for a lookup: a client address as `clientAddress()` (libs/core/src/http) makes it,
 * or null for callers that are not network clients (the CLI, tests of the services).
 */
export type LookupCaller = string | null;

interface InFlight {
  count: number;
  waiting: Array<() => void>;
}

/**
 * The per-address limit for unauthenticated traffic. A request whose key or secret is not known
 * to be valid costs a PostgreSQL lookup, and nothing else bounds such a request: it belongs to no
 * organization or session. So each client address may cause UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE
 * lookups that find nothing (a budget shared by every api and studio replica through Redis); past
 * it, a credential not known here is refused (`429 rate_limited`, Retry-After) without reaching
 * the database. Only misses are charged: a lookup that finds its credential spends nothing, so
 * any number of valid keys and secrets behind one address (an office, a school, a carrier's NAT)
 * get through, and the ones found lately skip even the check.
 *
 * The budget is checked before a lookup without spending (what this process knows of it) and
 * spent after a miss. Lookups in flight count against what is left: a lookup starts only while
 * fewer are in flight for the address than the budget has left, and never more than
 * LOOKUPS_IN_FLIGHT_PER_ADDRESS (the rest wait their turn). So in one process no more misses reach
 * the database than the budget allows, however many arrive at once. Across replicas, one's
 * knowledge of the shared window may be stale until its next spend asks Redis: each replica may
 * overshoot by the misses it had in flight when the window ran out, so at most
 * `budget + LOOKUPS_IN_FLIGHT_PER_ADDRESS × (replicas − 1)` misses a minute per address reach the
 * database (docs/security.md).
 */
@Injectable()
export class CredentialLookups {
  private readonly known = new LRUCache<string, true>({ max: KNOWN_CREDENTIALS.max, ttl: KNOWN_CREDENTIALS.ttlMs, updateAgeOnGet: true });
  private readonly inFlight = new Map<string, InFlight>();
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
      'Credential checks on the public ports: known (found lately, no lookup budget involved), found (looked up and found: not counted), ' +
        'counted (looked up, not found: one of the address budget spent), refused (the address spent its budget: no lookup)',
      ['outcome'] as const,
    );
  }

  /**
   * Looks `credential` up with `find` for `caller`: free when it was found lately; otherwise only
   * once the caller's budget for misses has room (`RateLimitExceeded` when it has none), and a
   * miss spends one of it (`RateLimitExceeded` if that was past the budget). Null: not found.
   */
  async lookup<T>(caller: LookupCaller, credential: string, find: () => Promise<T | null>): Promise<T | null> {
    if (caller === null) return find();
    if (this.known.get(credential)) {
      this.outcomes.inc({ outcome: 'known' });
      return find();
    }
    await this.enter(caller);
    try {
      const found = await find();
      if (found !== null) {
        this.known.set(credential, true);
        this.outcomes.inc({ outcome: 'found' });
        return found;
      }
      try {
        await this.budget.consume(caller);
        this.outcomes.inc({ outcome: 'counted' });
      } catch (e) {
        this.outcomes.inc({ outcome: 'refused' });
        throw e;
      }
      return null;
    } finally {
      this.leave(caller);
    }
  }

  /** Lookups of unknown credentials in flight now, for `caller` (tests). */
  inFlightFor(caller: string): number {
    return this.inFlight.get(caller)?.count ?? 0;
  }

  /** Waits for room to look up a credential not known here, or throws when the budget is spent. */
  private async enter(caller: string): Promise<void> {
    for (;;) {
      // Fetched again after each wait: an entry left idle meanwhile may have been dropped.
      let entry = this.inFlight.get(caller);
      if (!entry) {
        entry = { count: 0, waiting: [] };
        this.inFlight.set(caller, entry);
      }
      const state = this.budget.peek(caller);
      if (state.remaining === 0) {
        this.outcomes.inc({ outcome: 'refused' });
        // Those waiting behind learn the same at once.
        this.wakeNext(caller, entry);
        throw new RateLimitExceeded(state, this.budget.policy.message);
      }
      if (entry.count < Math.min(LOOKUPS_IN_FLIGHT_PER_ADDRESS, state.remaining)) {
        entry.count++;
        if (entry.count < Math.min(LOOKUPS_IN_FLIGHT_PER_ADDRESS, state.remaining)) this.wakeNext(caller, entry);
        return;
      }
      const queue = entry.waiting;
      await new Promise<void>((resolve) => queue.push(resolve));
    }
  }

  private leave(caller: string): void {
    const entry = this.inFlight.get(caller);
    if (!entry) return;
    entry.count--;
    this.wakeNext(caller, entry);
  }

  private wakeNext(caller: string, entry: InFlight): void {
    const next = entry.waiting.shift();
    if (next) next();
    else if (entry.count === 0) this.inFlight.delete(caller);
  }
}
