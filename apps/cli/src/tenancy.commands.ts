import { OrganizationsModule, OrganizationsService } from '@app/organizations';
import { LimitsService, OrganizationLimits, TenancyModule, UsageService } from '@app/tenancy';
import { INestApplicationContext } from '@nestjs/common';
import { withContext } from './cli-context';
import { Json, printResult } from './output';

/** Limits and usage of one organization, which must exist (an unknown id is `not_found`). */
function withTenancy<T>(organizationId: string, fn: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  return withContext([OrganizationsModule, TenancyModule], async (app) => {
    await app.get(OrganizationsService).getOrganization(organizationId);
    return fn(app);
  });
}

/** A whole number as the CLI takes it: digits only, so "1e3" or "10x" are refused, not guessed. */
function wholeNumber(flag: string, value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new Error(`${flag} must be a whole number`);
  return Number(value);
}

export async function orgLimits(
  o: Json & { org: string; maxConcurrentGenerations?: string; generationsPerDay?: string; maxWaitingGenerations?: string },
): Promise<void> {
  const change: Partial<OrganizationLimits> = {};
  if (o.maxConcurrentGenerations !== undefined) {
    change.maxConcurrentGenerations = wholeNumber('--max-concurrent-generations', o.maxConcurrentGenerations);
  }
  if (o.generationsPerDay !== undefined) {
    change.generationsPerDay = o.generationsPerDay === 'unlimited' ? null : wholeNumber('--generations-per-day', o.generationsPerDay);
  }
  if (o.maxWaitingGenerations !== undefined) {
    change.maxWaitingGenerations = wholeNumber('--max-waiting-generations', o.maxWaitingGenerations);
  }
  const limits = await withTenancy(o.org, async (app) => {
    const service = app.get(LimitsService);
    return Object.keys(change).length > 0 ? service.change(o.org, change) : service.of(o.org);
  });
  await printResult(
    !!o.json,
    { organizationId: o.org, ...limits },
    `${o.org}: at most ${limits.maxConcurrentGenerations} generations at once, ${limits.generationsPerDay ?? 'unlimited'} per day (UTC), ${limits.maxWaitingGenerations} waiting.`,
  );
}

export async function usage(o: Json & { org: string; from?: string; to?: string }): Promise<void> {
  const report = await withTenancy(o.org, (app) => app.get(UsageService).report(o.org, { from: o.from, to: o.to }));
  const t = report.totals;
  await printResult(
    !!o.json,
    { ...report },
    [
      `${report.organizationId}, ${report.from} to ${report.to}:`,
      `  generations started ${t.generationsStarted} (edits ${t.editsStarted}), succeeded ${t.generationsSucceeded}, failed ${t.generationsFailed}, cancelled ${t.generationsCancelled}`,
      `  provider cost ${t.providerCostUnits} units, stored ${t.storedBytes} bytes`,
      `  today: ${report.today.generationsStarted} started, ${report.today.remaining ?? 'unlimited'} left`,
    ].join('\n'),
  );
}
