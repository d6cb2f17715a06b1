import { DEFAULT_LIMITS, DEFAULT_MAX_WAITING_GENERATIONS } from '@app/tenancy/limits.service';
import { TenancyRepository } from '@app/tenancy/tenancy.repository';
import { METRICS_TOP_ORGANIZATIONS } from '@app/tenancy/usage-metrics';
import { utcDay } from '@app/tenancy/usage.service';
import { examplesOf, RepositoryExamples } from './examples';

/**
 * The counts go through one generation's whole life on the other organization (which has none in
 * flight, so its backlog starts and ends at zero): started (waiting), admitted (running), cancelled
 * while its work went on (holding its slot), released.
 */
export const tenancyExamples: RepositoryExamples<unknown>[] = [
  examplesOf<TenancyRepository>({
    type: TenancyRepository,
    make: (db) => new TenancyRepository(db),
    calls: {
      // As LimitsService.change does it: read, then write every limit.
      limitsOf: (r, _tx, f) => r.limitsOf([f.otherOrganizationId]),
      saveLimits: (r, _tx, f) => r.saveLimits({ organizationId: f.otherOrganizationId, ...DEFAULT_LIMITS, updatedAt: f.now }),
      countStart: (r, tx, f) => r.countStart(tx, f.otherOrganizationId, utcDay(f.now), false, DEFAULT_MAX_WAITING_GENERATIONS),
      countAdmitted: (r, tx, f) => r.countAdmitted(tx, new Map([[f.otherOrganizationId, 1]])),
      countEnd: (r, tx, f) => r.countEnd(tx, f.otherOrganizationId, utcDay(f.now), 'cancelled', 'holding'),
      countReleased: (r, tx, f) => r.countReleased(tx, f.otherOrganizationId),
      withWaiting: (r, tx) => r.withWaiting(tx),
      backlogOf: (r, tx, f) => r.backlogOf(f.otherOrganizationId, tx),
      addCost: (r, tx, f) => r.addCost(tx, f.otherOrganizationId, utcDay(f.now), 3),
      addStoredBytes: (r, tx, f) => r.addStoredBytes(tx, f.otherOrganizationId, utcDay(f.now), 1_048_576),
      days: (r, _tx, f) => r.days(f.otherOrganizationId, `${utcDay(f.now).slice(0, 8)}01`, utcDay(f.now)),
      busiest: (r, _tx, f) => r.busiest(utcDay(f.now), METRICS_TOP_ORGANIZATIONS),
    },
  }),
];
