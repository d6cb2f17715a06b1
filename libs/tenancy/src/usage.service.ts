import { Clock, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { UsageCounters, UsageDay, UsageResponse } from './dto/usage.response';
import { DEFAULT_MAX_WAITING_GENERATIONS, LimitsService } from './limits.service';
import { TenancyErrors } from './tenancy.errors';
import { BacklogPlace, TenancyRepository, UsageOutcome } from './tenancy.repository';

export type { BacklogPlace, UsageOutcome } from './tenancy.repository';

/** The longest period one usage report covers. */
export const MAX_USAGE_DAYS = 93;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** Whole seconds from `at` to the next UTC midnight, when a new day's quota begins. */
export function secondsToUtcMidnight(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}

export type UsageKind = 'creation' | 'edit';

/**
 * What each organization used, counted exactly as it happens: every method that counts takes the
 * transaction of the change it counts, so a count exists exactly when its change committed (a
 * rolled-back creation counts nothing, and no report ever scans operations to recompute).
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly repository: TenancyRepository,
    private readonly limits: LimitsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts a creation or an edit started at `at` against the day's quota, and as waiting against
   * the organization's `maxWaitingGenerations`. Throws `quota_exceeded` (with the seconds to
   * midnight UTC) or `max_waiting_generations_exceeded`, which rolls the caller's transaction back:
   * nothing is created and an Idempotency-Key is not used up.
   */
  async startGeneration(tx: Tx, organizationId: string, kind: UsageKind, at: Date): Promise<void> {
    const counted = await this.repository.countStart(tx, organizationId, utcDay(at), kind === 'edit', DEFAULT_MAX_WAITING_GENERATIONS);
    if (counted === 'counted') return;
    // In the caller's transaction: a second connection taken while this one is held could wait
    // for ever on a pool that many refused requests hold at once.
    const limits = await this.limits.of(organizationId, tx);
    if (counted === 'quota') throw TenancyErrors.quotaExceeded(limits.generationsPerDay, secondsToUtcMidnight(at));
    throw TenancyErrors.maxWaitingGenerationsExceeded(limits.maxWaitingGenerations);
  }

  /**
   * Counts an operation's end, and takes it off its organization's backlog: `was` says whether it
   * was still waiting, running, or running with work that goes on after its end (then it keeps its
   * slot until GenerationBacklogs.released).
   */
  ended(tx: Tx, organizationId: string, outcome: UsageOutcome, at: Date, was: BacklogPlace): Promise<void> {
    return this.repository.countEnd(tx, organizationId, utcDay(at), outcome, was);
  }

  async providerCost(tx: Tx, organizationId: string, units: number, at: Date): Promise<void> {
    if (units > 0) await this.repository.addCost(tx, organizationId, utcDay(at), units);
  }

  async stored(tx: Tx, organizationId: string, bytes: number, at: Date): Promise<void> {
    if (bytes > 0) await this.repository.addStoredBytes(tx, organizationId, utcDay(at), bytes);
  }

  /**
   * `GET /v1/usage`: the days from `from` to `to` (UTC, inclusive). Defaults: the current month up
   * to today; with `from` alone, to the end of its month (or today); with `to` alone, from the
   * first of its month.
   */
  async report(organizationId: string, range: { from?: string; to?: string }): Promise<UsageResponse> {
    const now = this.clock.now();
    const today = utcDay(now);
    const from = range.from ?? `${(range.to ?? today).slice(0, 8)}01`;
    const to = range.to ?? (range.from ? lastDay(from, today) : today);
    checkRange(from, to);
    const [limits, rows, todays, backlog] = await Promise.all([
      this.limits.of(organizationId),
      this.repository.days(organizationId, from, to),
      this.repository.days(organizationId, today, today),
      this.repository.backlogOf(organizationId),
    ]);
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const days: UsageDay[] = [];
    for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
      const date = new Date(t).toISOString().slice(0, 10);
      days.push({ date, ...counters(byDay.get(date)) });
    }
    const startedToday = todays[0]?.generationsStarted ?? 0;
    return {
      organizationId,
      from,
      to,
      limits: { organizationId, ...limits },
      today: {
        generationsStarted: startedToday,
        remaining: limits.generationsPerDay === null ? null : Math.max(0, limits.generationsPerDay - startedToday),
      },
      inFlight: { generationsWaiting: backlog.waiting, generationsRunning: backlog.running, generationsCancelling: backlog.cancelling },
      days,
      totals: days.reduce(sum, counters(undefined)),
    };
  }
}

/** With only `from` given: to the end of its month, or today if sooner. */
function lastDay(from: string, today: string): string {
  const [y, m] = from.split('-').map(Number);
  const monthEnd = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return monthEnd < today ? monthEnd : today < from ? from : today;
}

function checkRange(from: string, to: string): void {
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (
      !DATE.test(value) ||
      Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
      new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
    ) {
      throw TenancyErrors.invalidRange(field, `${field} must be a calendar date, YYYY-MM-DD (UTC)`);
    }
  }
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (span < 1) throw TenancyErrors.invalidRange('to', 'to must not be before from');
  if (span > MAX_USAGE_DAYS) throw TenancyErrors.invalidRange('to', `a report covers at most ${MAX_USAGE_DAYS} days`);
}

function counters(row: UsageCounters | undefined): UsageCounters {
  return {
    generationsStarted: row?.generationsStarted ?? 0,
    generationsSucceeded: row?.generationsSucceeded ?? 0,
    generationsFailed: row?.generationsFailed ?? 0,
    generationsCancelled: row?.generationsCancelled ?? 0,
    editsStarted: row?.editsStarted ?? 0,
    providerCostUnits: row?.providerCostUnits ?? 0,
    storedBytes: row?.storedBytes ?? 0,
  };
}

function sum(total: UsageCounters, day: UsageCounters): UsageCounters {
  return {
    generationsStarted: total.generationsStarted + day.generationsStarted,
    generationsSucceeded: total.generationsSucceeded + day.generationsSucceeded,
    generationsFailed: total.generationsFailed + day.generationsFailed,
    generationsCancelled: total.generationsCancelled + day.generationsCancelled,
    editsStarted: total.editsStarted + day.editsStarted,
    providerCostUnits: total.providerCostUnits + day.providerCostUnits,
    storedBytes: total.storedBytes + day.storedBytes,
  };
}
