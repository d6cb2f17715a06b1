import { entityColumns, rawInsert, rawQuery, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OrganizationBacklogEntity } from './organization-backlog.entity';
import { OrganizationLimitsEntity } from './organization-limits.entity';
import { UsageDayEntity } from './usage-day.entity';

/** How an operation ended, as usage counts it. */
export type UsageOutcome = 'succeeded' | 'failed' | 'cancelled';

const OUTCOME_COLUMN: Record<UsageOutcome, string> = {
  succeeded: 'generations_succeeded',
  failed: 'generations_failed',
  cancelled: 'generations_cancelled',
};

/**
 * Where an ending generation was: waiting for its turn, running (its work stops with it), or
 * running with its work going on after its end (it keeps its slot until that work ends).
 */
export type BacklogPlace = 'waiting' | 'running' | 'holding';

/** What counting a start found: counted, or refused by the day's quota or by the waiting cap. */
export type StartCount = 'counted' | 'quota' | 'waiting';

/** No daily quota: the largest integer column value stands for it in the quota's comparison. */
const UNLIMITED = 2_147_483_647;

@Injectable()
export class TenancyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** In `tx` when given (a caller holding a connection reads on it rather than take a second one). */
  limitsOf(organizationIds: string[], tx?: Tx): Promise<OrganizationLimitsEntity[]> {
    if (organizationIds.length === 0) return Promise.resolve([]);
    const db = tx ?? this.db;
    const limits = entityColumns(db, OrganizationLimitsEntity);
    return limits.rows(db, `SELECT ${limits.sql} FROM organization_limits WHERE organization_id = ANY($1)`, [organizationIds]);
  }

  async saveLimits(row: OrganizationLimitsEntity): Promise<void> {
    const set = entityColumns(this.db, OrganizationLimitsEntity, { except: ['organizationId'] }).names.map((c) => `${c} = EXCLUDED.${c}`);
    await rawInsert(this.db, OrganizationLimitsEntity, row, `ON CONFLICT (organization_id) DO UPDATE SET ${set.join(', ')}`);
  }

  /**
   * Counts one generation started on `day` unless the day's quota is spent, then counts it
   * waiting unless the organization's waiting cap is reached: one statement that reads the limits,
   * checks and increments under the rows' locks, so concurrent starts never pass either (each waits
   * for the one before and sees its count). The usage day's row is locked before the backlog's
   * row, the order every statement here takes (`ended` too). The caller's transaction is rolled
   * back on a refusal, which undoes the usage count when only the waiting cap refused.
   */
  async countStart(tx: Tx, organizationId: string, day: string, isEdit: boolean, defaultMaxWaiting: number): Promise<StartCount> {
    const { rows } = await rawQuery<{ started: number; queued: number }>(
      tx,
      `WITH lim AS (
         SELECT coalesce(l.generations_per_day, ${UNLIMITED}) AS per_day, coalesce(l.max_waiting_generations, $4) AS max_waiting
           FROM (SELECT 1) one LEFT JOIN organization_limits l ON l.organization_id = $1),
       started AS (
         INSERT INTO usage_days AS u (organization_id, day, generations_started, edits_started)
         SELECT $1, $2, 1, $3 FROM lim WHERE lim.per_day > 0
         ON CONFLICT (organization_id, day) DO UPDATE
            SET generations_started = u.generations_started + 1, edits_started = u.edits_started + EXCLUDED.edits_started
          WHERE u.generations_started < (SELECT per_day FROM lim)
         RETURNING 1),
       queued AS (
         INSERT INTO organization_backlogs AS b (organization_id, waiting)
         SELECT $1, 1 FROM lim WHERE EXISTS (SELECT 1 FROM started)
         ON CONFLICT (organization_id) DO UPDATE SET waiting = b.waiting + 1
          WHERE b.waiting < (SELECT max_waiting FROM lim)
         RETURNING 1)
       SELECT (SELECT count(*) FROM started)::int AS started, (SELECT count(*) FROM queued)::int AS queued`,
      [organizationId, day, isEdit ? 1 : 0, defaultMaxWaiting],
    );
    const { started, queued } = rows[0];
    return started === 0 ? 'quota' : queued === 0 ? 'waiting' : 'counted';
  }

  /**
   * Counts an operation's end on `day`, and takes it off the organization's backlog: off `waiting`
   * when it ended before its turn came, off `running` when it had been admitted and its work
   * stopped with it; a generation whose work goes on (`holding`) stays running until
   * `countReleased`.
   */
  async countEnd(tx: Tx, organizationId: string, day: string, outcome: UsageOutcome, was: BacklogPlace): Promise<void> {
    const column = OUTCOME_COLUMN[outcome];
    await rawQuery(
      tx,
      `WITH counted AS (
         INSERT INTO usage_days AS u (organization_id, day, ${column}) VALUES ($1, $2, 1)
         ON CONFLICT (organization_id, day) DO UPDATE SET ${column} = u.${column} + 1
         RETURNING 1)
       UPDATE organization_backlogs SET waiting = waiting - $3, running = running - $4, cancelling = cancelling + $5
        WHERE organization_id = $1 AND EXISTS (SELECT 1 FROM counted)`,
      [organizationId, day, was === 'waiting' ? 1 : 0, was === 'running' ? 1 : 0, was === 'holding' ? 1 : 0],
    );
  }

  /** A generation that ended while its work went on has stopped holding its slot. */
  async countReleased(tx: Tx, organizationId: string): Promise<void> {
    await rawQuery(tx, `UPDATE organization_backlogs SET running = running - 1, cancelling = cancelling - 1 WHERE organization_id = $1`, [
      organizationId,
    ]);
  }

  /** Admission let `count` waiting generations of each organization on the queue: they hold slots now. */
  async countAdmitted(tx: Tx, admitted: Map<string, number>): Promise<void> {
    if (admitted.size === 0) return;
    // The only statement that locks several of these rows: admission's, one round at a time (its
    // advisory lock), so it never waits in a circle with another that does.
    const ids = [...admitted.keys()];
    await rawQuery(
      tx,
      `UPDATE organization_backlogs b SET waiting = b.waiting - d.n, running = b.running + d.n
         FROM (SELECT unnest($1::text[]) AS organization_id, unnest($2::int[]) AS n) d
        WHERE b.organization_id = d.organization_id`,
      [ids, ids.map((id) => admitted.get(id)!)],
    );
  }

  /** The organizations with generations waiting, and what they run: one row each, whatever their backlogs. */
  withWaiting(tx?: Tx): Promise<OrganizationBacklogEntity[]> {
    const db = tx ?? this.db;
    const backlog = entityColumns(db, OrganizationBacklogEntity);
    return backlog.rows(db, `SELECT ${backlog.sql} FROM organization_backlogs WHERE waiting > 0`, []);
  }

  /** One organization's counts (zeros when it never had any). */
  async backlogOf(organizationId: string, tx?: Tx): Promise<OrganizationBacklogEntity> {
    const db = tx ?? this.db;
    const backlog = entityColumns(db, OrganizationBacklogEntity);
    const [found] = await backlog.rows(db, `SELECT ${backlog.sql} FROM organization_backlogs WHERE organization_id = $1`, [organizationId]);
    return found ?? { organizationId, waiting: 0, running: 0, cancelling: 0 };
  }

  async addCost(tx: Tx, organizationId: string, day: string, units: number): Promise<void> {
    await this.add(tx, organizationId, day, 'provider_cost_units', units);
  }

  async addStoredBytes(tx: Tx, organizationId: string, day: string, bytes: number): Promise<void> {
    await this.add(tx, organizationId, day, 'stored_bytes', bytes);
  }

  /** The organization's days from `from` to `to` (inclusive) that have counters. */
  days(organizationId: string, from: string, to: string): Promise<UsageDayEntity[]> {
    const all = entityColumns(this.db, UsageDayEntity);
    return all.rows(this.db, `SELECT ${all.sql} FROM usage_days WHERE organization_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day`, [
      organizationId,
      from,
      to,
    ]);
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
  private async add(tx: Tx, organizationId: string, day: string, column: string, amount: number): Promise<void> {
    await rawQuery(
      tx,
      `INSERT INTO usage_days AS u (organization_id, day, ${column}) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id, day) DO UPDATE SET ${column} = u.${column} + EXCLUDED.${column}`,
      [organizationId, day, amount],
    );
  }
}
