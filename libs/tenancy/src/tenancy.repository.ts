import { rawQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, EntityManager, In } from 'typeorm';
import { OrganizationLimitsEntity } from './organization-limits.entity';
import { UsageDayEntity } from './usage-day.entity';

/** How an operation ended, as usage counts it. */
export type UsageOutcome = 'succeeded' | 'failed' | 'cancelled';

const OUTCOME_COLUMN: Record<UsageOutcome, string> = {
  succeeded: 'generations_succeeded',
  failed: 'generations_failed',
  cancelled: 'generations_cancelled',
};

/** No daily quota: the largest integer column value stands for it in the quota's comparison. */
const UNLIMITED = 2_147_483_647;

@Injectable()
export class TenancyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** In `tx` when given (a caller holding a connection reads on it rather than take a second one). */
  limitsOf(organizationIds: string[], tx?: EntityManager): Promise<OrganizationLimitsEntity[]> {
    if (organizationIds.length === 0) return Promise.resolve([]);
    return (tx ?? this.db.manager).getRepository(OrganizationLimitsEntity).findBy({ organizationId: In(organizationIds) });
  }

  async saveLimits(row: OrganizationLimitsEntity): Promise<void> {
    await this.db.getRepository(OrganizationLimitsEntity).upsert(row, ['organizationId']);
  }

  /**
   * Counts one generation started on `day` unless the day's quota is spent: one statement that
   * reads the quota, checks and increments under the row's lock, so concurrent starts never pass
   * it (each waits for the one before and sees its count). False when the quota is spent.
   */
  async countStart(tx: EntityManager, organizationId: string, day: string, isEdit: boolean): Promise<boolean> {
    const quota = `coalesce((SELECT generations_per_day FROM organization_limits WHERE organization_id = $1), ${UNLIMITED})`;
    const { rows } = await rawQuery(
      tx,
      `INSERT INTO usage_days AS u (organization_id, day, generations_started, edits_started)
       SELECT $1, $2, 1, $3 WHERE ${quota} > 0
       ON CONFLICT (organization_id, day) DO UPDATE
          SET generations_started = u.generations_started + 1, edits_started = u.edits_started + EXCLUDED.edits_started
        WHERE u.generations_started < ${quota}
       RETURNING u.generations_started`,
      [organizationId, day, isEdit ? 1 : 0],
    );
    return rows.length === 1;
  }

  async countEnd(tx: EntityManager, organizationId: string, day: string, outcome: UsageOutcome): Promise<void> {
    await this.add(tx, organizationId, day, OUTCOME_COLUMN[outcome], 1);
  }

  async addCost(tx: EntityManager, organizationId: string, day: string, units: number): Promise<void> {
    await this.add(tx, organizationId, day, 'provider_cost_units', units);
  }

  async addStoredBytes(tx: EntityManager, organizationId: string, day: string, bytes: number): Promise<void> {
    await this.add(tx, organizationId, day, 'stored_bytes', bytes);
  }

  /** The organization's days from `from` to `to` (inclusive) that have counters. */
  days(organizationId: string, from: string, to: string): Promise<UsageDayEntity[]> {
    return this.db.getRepository(UsageDayEntity).find({ where: { organizationId, day: Between(from, to) }, order: { day: 'ASC' } });
  }

  /** The organizations that started the most generations on `day`, and everyone else's sum. */
  async busiest(day: string, top: number): Promise<{ organizationId: string | null; started: number; cost: number }[]> {
    // Sums per rank: the names are the query's own, not an entity's columns.
    const { rows } = await rawQuery<{ organization_id: string | null; started: string; cost: string }>(
      this.db,
      `WITH ranked AS (
         SELECT organization_id, generations_started, provider_cost_units,
                row_number() OVER (ORDER BY generations_started DESC, organization_id) AS rank
           FROM usage_days WHERE day = $1)
       SELECT CASE WHEN rank <= $2 THEN organization_id END AS organization_id,
              sum(generations_started) AS started, sum(provider_cost_units) AS cost
         FROM ranked GROUP BY 1`,
      [day, top],
    );
    return rows.map((r) => ({ organizationId: r.organization_id, started: Number(r.started), cost: Number(r.cost) }));
  }

  /** `column` is one of ours, never input. */
  private async add(tx: EntityManager, organizationId: string, day: string, column: string, amount: number): Promise<void> {
    await rawQuery(
      tx,
      `INSERT INTO usage_days AS u (organization_id, day, ${column}) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id, day) DO UPDATE SET ${column} = u.${column} + EXCLUDED.${column}`,
      [organizationId, day, amount],
    );
  }
}
