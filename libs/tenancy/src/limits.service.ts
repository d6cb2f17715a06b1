import { Clock, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { TenancyErrors } from './tenancy.errors';
import { TenancyRepository } from './tenancy.repository';

/** What an organization may use of the shared fleet (docs/operations.md, "Tenancy: limits, the provider's rate, usage"). */
export interface OrganizationLimits {
  /** Generations and edits running at once; more wait their turn (`stage: queued`). */
  maxConcurrentGenerations: number;
  /** Creations plus edits started per UTC day; null: unlimited. */
  generationsPerDay: number | null;
  /**
   * Generations accepted and still waiting for their turn (not admitted); more are refused with
   * `429 max_waiting_generations_exceeded` (docs/api.md, "Limits"). Never unlimited: a backlog
   * is rows, polls and admission work that someone pays for.
   */
  maxWaitingGenerations: number;
}

/**
 * The default waiting cap, 1000: a hundred rounds of the default 10 at once, hours of a
 * provider's work (Marble's minutes-long worlds at its few starts a minute take longer than a day
 * to get through it), far more than a partner can usefully queue, and small enough that every
 * organization's waiting rows stay a bounded table. An operator raises it per organization.
 */
export const DEFAULT_MAX_WAITING_GENERATIONS = 1000;
export const DEFAULT_LIMITS: Readonly<OrganizationLimits> = {
  maxConcurrentGenerations: 10,
  generationsPerDay: null,
  maxWaitingGenerations: DEFAULT_MAX_WAITING_GENERATIONS,
};
export const MAX_CONCURRENT_GENERATIONS = 10_000;
export const MAX_GENERATIONS_PER_DAY = 100_000_000;
export const MAX_WAITING_GENERATIONS = 1_000_000;

/**
 * Operators' limits per organization. Read where they are enforced, in the statement or round that
 * enforces them (the quota's counter, an admission round), rather than through a cache: one
 * indexed read there costs no extra round trip, and a change made with `cli org limits` applies
 * to the very next start.
 */
@Injectable()
export class LimitsService {
  constructor(
    private readonly repository: TenancyRepository,
    private readonly clock: Clock,
  ) {}

  async of(organizationId: string, tx?: Tx): Promise<OrganizationLimits> {
    return (await this.ofMany([organizationId], tx)).get(organizationId)!;
  }

  /** Every organization asked for, with the defaults where none were set; in `tx` when given. */
  async ofMany(organizationIds: string[], tx?: Tx): Promise<Map<string, OrganizationLimits>> {
    const rows = await this.repository.limitsOf(organizationIds, tx);
    const found = new Map(
      rows.map((r) => [
        r.organizationId,
        {
          maxConcurrentGenerations: r.maxConcurrentGenerations,
          generationsPerDay: r.generationsPerDay,
          maxWaitingGenerations: r.maxWaitingGenerations,
        },
      ]),
    );
    return new Map(organizationIds.map((id) => [id, found.get(id) ?? { ...DEFAULT_LIMITS }]));
  }

  /** Changes what `change` names, keeps the rest; the organization must exist (the caller checks). */
  async change(organizationId: string, change: Partial<OrganizationLimits>): Promise<OrganizationLimits> {
    const next = { ...(await this.of(organizationId)), ...change };
    const max = next.maxConcurrentGenerations;
    if (!Number.isInteger(max) || max < 1 || max > MAX_CONCURRENT_GENERATIONS) {
      throw TenancyErrors.invalidLimit('maxConcurrentGenerations', `must be a whole number from 1 to ${MAX_CONCURRENT_GENERATIONS}`);
    }
    const perDay = next.generationsPerDay;
    if (perDay !== null && (!Number.isInteger(perDay) || perDay < 0 || perDay > MAX_GENERATIONS_PER_DAY)) {
      throw TenancyErrors.invalidLimit('generationsPerDay', `must be a whole number from 0 to ${MAX_GENERATIONS_PER_DAY}, or unlimited`);
    }
    const waiting = next.maxWaitingGenerations;
    if (!Number.isInteger(waiting) || waiting < 1 || waiting > MAX_WAITING_GENERATIONS) {
      throw TenancyErrors.invalidLimit('maxWaitingGenerations', `must be a whole number from 1 to ${MAX_WAITING_GENERATIONS}`);
    }
    await this.repository.saveLimits({ organizationId, ...next, updatedAt: this.clock.now() });
    return next;
  }
}
