import { Clock, MetricsService } from '@app/core';
import { DEFAULT_LIMITS, GenerationBacklogs, LimitsService, OrganizationLimits } from '@app/tenancy';
import { Injectable, Logger } from '@nestjs/common';
import { BacklogGroup, GenerationBacklogRepository } from './generation-backlog.repository';
import { OperationStage } from './operation.entity';

/** Organizations named on /metrics per gauge; the rest are folded into `organization="other"`. */
export const BACKLOG_TOP_ORGANIZATIONS = 20;

const STAGES: readonly OperationStage[] = ['queued', 'generating', 'downloading', 'storing'];

export interface BacklogSnapshot {
  /** Processing generations per stage, every stage present. */
  stages: Map<OperationStage, number>;
  /** Generations not started yet (`stage: queued`), per organization: the largest backlogs, then `other`. */
  waiting: { organization: string; count: number }[];
  /**
   * Age of each organization's oldest generation not started yet: the longest waits, then
   * `other` (the longest of the rest), each split by whether the organization is at its
   * maxConcurrentGenerations (it waits for its own work to end, not for the fleet).
   */
  oldestWaiting: { organization: string; atLimit: boolean; seconds: number }[];
}

/**
 * The backlog as /metrics shows it, from the grouped rows of GenerationBacklogRepository.
 * "Waiting" is what a partner sees as `stage: queued`: accepted and not yet admitted, or admitted
 * and not yet started (on BullMQ, or held back by the provider's start rate). An organization is
 * at its limit when its admitted generations still processing reach its maxConcurrentGenerations,
 * as the admission round counts them. Labels stay bounded: at most `top` organizations plus `other`
 * per gauge, whatever the number of tenants, and `other` is always present (0 when nobody waits)
 * so that "the oldest wait" reads 0, not nothing, on an idle fleet.
 */
export function backlogSnapshot(
  groups: BacklogGroup[],
  maxConcurrent: (organizationId: string) => number,
  now: Date,
  top = BACKLOG_TOP_ORGANIZATIONS,
): BacklogSnapshot {
  const stages = new Map<OperationStage, number>(STAGES.map((s) => [s, 0]));
  const orgs = new Map<string, { waiting: number; running: number; oldestAt: number }>();
  for (const g of groups) {
    stages.set(g.stage, (stages.get(g.stage) ?? 0) + g.count);
    const o = orgs.get(g.organizationId) ?? { waiting: 0, running: 0, oldestAt: Infinity };
    if (g.admitted) o.running += g.count;
    if (g.stage === 'queued') {
      o.waiting += g.count;
      o.oldestAt = Math.min(o.oldestAt, g.oldestAt.getTime());
    }
    orgs.set(g.organizationId, o);
  }
  const waitingOrgs = [...orgs].filter(([, o]) => o.waiting > 0);

  const bySize = [...waitingOrgs].sort(([a, x], [b, y]) => y.waiting - x.waiting || a.localeCompare(b));
  const waiting = bySize.slice(0, top).map(([organization, o]) => ({ organization, count: o.waiting }));
  waiting.push({ organization: 'other', count: bySize.slice(top).reduce((n, [, o]) => n + o.waiting, 0) });

  const seconds = (at: number) => Math.max(0, (now.getTime() - at) / 1000);
  const byAge = waitingOrgs
    .map(([organization, o]) => ({ organization, atLimit: o.running >= maxConcurrent(organization), seconds: seconds(o.oldestAt) }))
    .sort((x, y) => y.seconds - x.seconds || x.organization.localeCompare(y.organization));
  const oldestWaiting = byAge.slice(0, top);
  for (const atLimit of [false, true]) {
    const rest = byAge.slice(top).filter((o) => o.atLimit === atLimit);
    oldestWaiting.push({ organization: 'other', atLimit, seconds: Math.max(0, ...rest.map((o) => o.seconds)) });
  }
  return { stages, waiting, oldestWaiting };
}

/**
 * The operations waiting for their organization's turn as groups (`stage: queued`, not admitted),
 * from tenancy's counts and the oldest arrival of each. An organization whose last waiting
 * operation left between the two reads has no oldest: its count is dropped with it.
 */
export function waitingGroups(counts: { organizationId: string; waiting: number }[], oldest: Map<string, Date>): BacklogGroup[] {
  return counts.flatMap(({ organizationId, waiting }) => {
    const oldestAt = oldest.get(organizationId);
    return oldestAt && waiting > 0 ? [{ organizationId, stage: 'queued' as const, admitted: false, count: waiting, oldestAt }] : [];
  });
}

/**
 * The generation backlog on the worker's /metrics, read at scrape time from PostgreSQL apart from
 * the admission round: `generations_in_progress{stage}`, `generations_waiting{organization}` and
 * `generation_oldest_waiting_seconds{organization,at_limit}` (backlogSnapshot says what each
 * counts). Registered by the worker only; every worker reports the same figures, so aggregate
 * them with `max`, not `sum`. A scrape during a database outage answers with every other metric
 * and these empty.
 */
@Injectable()
export class GenerationBacklogMetrics {
  private readonly logger = new Logger(GenerationBacklogMetrics.name);

  constructor(
    repository: GenerationBacklogRepository,
    backlogs: GenerationBacklogs,
    limits: LimitsService,
    clock: Clock,
    metrics: MetricsService,
  ) {
    let snapshot: Promise<BacklogSnapshot | null> | null = null;
    const take = async (): Promise<BacklogSnapshot> => {
      // One statement at a time (oneAtATime lends this read one pooled connection).
      const admitted = await repository.admittedInProgress();
      const counts = await backlogs.withWaiting();
      const oldest = await repository.oldestWaitingOf(counts.map((c) => c.organizationId));
      const groups = [...admitted, ...waitingGroups(counts, oldest)];
      const waitingOrgs = [...new Set(groups.filter((g) => g.stage === 'queued').map((g) => g.organizationId))];
      const known = waitingOrgs.length ? await limits.ofMany(waitingOrgs) : new Map<string, OrganizationLimits>();
      const max = (id: string) => known.get(id)?.maxConcurrentGenerations ?? DEFAULT_LIMITS.maxConcurrentGenerations;
      return backlogSnapshot(groups, max, clock.now());
    };
    // One read serves the three gauges of a scrape.
    const read = () =>
      (snapshot ??= metrics
        .oneAtATime(take)
        .catch((e: unknown) => {
          this.logger.warn(`Generation backlog gauges left empty this scrape: ${e instanceof Error ? e.constructor.name : 'error'}`);
          return null;
        })
        .finally(() => setImmediate(() => (snapshot = null))));

    metrics.gauge('generations_in_progress', 'Generations and edits processing, by stage', ['stage'] as const, async function () {
      this.reset();
      const s = await read();
      for (const [stage, n] of s?.stages ?? []) this.set({ stage }, n);
    });
    metrics.gauge(
      'generations_waiting',
      'Generations and edits not started yet (stage queued), largest backlogs by organization',
      ['organization'] as const,
      async function () {
        this.reset();
        for (const w of (await read())?.waiting ?? []) this.set({ organization: w.organization }, w.count);
      },
    );
    metrics.gauge(
      'generation_oldest_waiting_seconds',
      'Age of the oldest generation not started yet, longest waits by organization; at_limit: the organization runs its maxConcurrentGenerations',
      ['organization', 'at_limit'] as const,
      async function () {
        this.reset();
        for (const o of (await read())?.oldestWaiting ?? [])
          this.set({ organization: o.organization, at_limit: String(o.atLimit) }, o.seconds);
      },
    );
  }
}
