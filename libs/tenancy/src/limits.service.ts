import { Clock } from '@app/core';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TenancyErrors } from './tenancy.errors';
import { TenancyRepository } from './tenancy.repository';

/** What an organization may use of the shared fleet (contract section 7). */
export interface OrganizationLimits {
  /** Generations and edits running at once; more wait their turn (`stage: queued`). */
  maxConcurrentGenerations: number;
  /** Creations plus edits started per UTC day; null: unlimited. */
  generationsPerDay: number | null;
}

export const DEFAULT_LIMITS: Readonly<OrganizationLimits> = { maxConcurrentGenerations: 10, generationsPerDay: null };
export const MAX_CONCURRENT_GENERATIONS = 10_000;
export const MAX_GENERATIONS_PER_DAY = 100_000_000;

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

  async of(organizationId: string, tx?: EntityManager): Promise<OrganizationLimits> {
    return (await this.ofMany([organizationId], tx)).get(organizationId)!;
  }

  /** Every organization asked for, with the defaults where none were set; in `tx` when given. */
  async ofMany(organizationIds: string[], tx?: EntityManager): Promise<Map<string, OrganizationLimits>> {
    const rows = await this.repository.limitsOf(organizationIds, tx);
    const found = new Map(
      rows.map((r) => [r.organizationId, { maxConcurrentGenerations: r.maxConcurrentGenerations, generationsPerDay: r.generationsPerDay }]),
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
    await this.repository.saveLimits({ organizationId, ...next, updatedAt: this.clock.now() });
    return next;
  }
}
