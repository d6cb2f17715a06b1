import { AppConfig, ensureDatabase, runMigrations } from '@app/core';
import { OrganizationsService } from '@app/organizations';
import { LimitsService, OrganizationLimits, UsageService } from '@app/tenancy';
import { WEBHOOK_LIMITS, WebhookEndpointResponse, WebhookEndpointsService, WebhookEventType } from '@app/webhooks';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { CliModule } from './cli.module';
import { MIGRATIONS } from './migrations';
import { printResult } from './output';

export type Json = { json?: boolean };

async function withServices<T>(
  config: AppConfig,
  fn: (orgs: OrganizationsService, app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const app: INestApplicationContext = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  try {
    return await fn(app.get(OrganizationsService), app);
  } finally {
    await app.close();
  }
}

/** Runs `fn` with the webhook endpoints service and the organization as its owner (test or live). */
function withWebhooks<T>(
  config: AppConfig,
  organizationId: string,
  fn: (webhooks: WebhookEndpointsService, owner: { organizationId: string; isTest: boolean }) => Promise<T>,
): Promise<T> {
  return withServices(config, async (orgs, app) => {
    const org = await orgs.getOrganization(organizationId);
    return fn(app.get(WebhookEndpointsService), { organizationId: org.organizationId, isTest: org.test });
  });
}

const endpointLine = (e: WebhookEndpointResponse) =>
  `${e.webhookEndpointId}  ${e.enabled ? 'enabled' : `disabled (${e.disabledReason})`}  ${e.url}  events: ${e.events.join(', ')}`;

export async function migrate(config: AppConfig, o: Json & { createDatabase?: boolean }): Promise<void> {
  const created = o.createDatabase ? await ensureDatabase(config) : false;
  const applied = await runMigrations(config, MIGRATIONS);
  await printResult(
    !!o.json,
    { ...(o.createDatabase ? { createdDatabase: created } : {}), applied },
    [
      ...(created ? ['Created the database.'] : []),
      applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}` : 'Database is up to date.',
    ].join('\n'),
  );
}

export async function orgCreate(config: AppConfig, o: Json & { name: string; test?: boolean; origin: string[] }): Promise<void> {
  const r = await withServices(config, (s) => s.createOrganization({ name: o.name, test: !!o.test, origins: o.origin }));
  await printResult(
    !!o.json,
    { ...r },
    [
      `Created organization ${r.organizationId} (${r.name}${r.test ? ', test' : ''}).`,
      `API key ${r.keyId}: ${r.apiKey}`,
      'Store this key now: it is shown only once.',
    ].join('\n'),
  );
}

export async function orgList(config: AppConfig, o: Json): Promise<void> {
  const organizations = await withServices(config, (s) => s.listOrganizations());
  await printResult(
    !!o.json,
    { organizations },
    organizations.length
      ? organizations
          .map((g) => `${g.organizationId}  ${g.test ? 'test' : 'live'}  ${g.name}  origins: ${g.origins.join(', ') || '-'}`)
          .join('\n')
      : 'No organizations.',
  );
}

export async function orgBootstrapLocal(config: AppConfig, o: Json): Promise<void> {
  const r = await withServices(config, (s) => s.bootstrapLocal([]));
  if (!r) {
    await printResult(!!o.json, { created: false }, 'Organizations exist already; no local test organization created.');
    return;
  }
  await printResult(
    !!o.json,
    { created: true, ...r },
    [
      '',
      '  Created the local test organization (it may embed on http://localhost:<port> origins).',
      `  Organization: ${r.organizationId}`,
      `  API key:      ${r.apiKey}`,
      '  This key is shown once: copy it now. Create more with: npm run --silent cli -- key create --org ' + r.organizationId,
      '',
    ].join('\n'),
  );
}

export async function keyCreate(config: AppConfig, o: Json & { org: string }): Promise<void> {
  const r = await withServices(config, (s) => s.createApiKey(o.org));
  await printResult(!!o.json, { ...r }, `API key ${r.keyId}: ${r.apiKey}\nStore this key now: it is shown only once.`);
}

export async function keyRevoke(config: AppConfig, o: Json & { key: string }): Promise<void> {
  const r = await withServices(config, (s) => s.revokeApiKey(o.key));
  await printResult(!!o.json, { ...r }, r.revoked ? `Revoked ${r.keyId}.` : `${r.keyId} was already revoked.`);
}

export async function keyList(config: AppConfig, o: Json & { org: string }): Promise<void> {
  const keys = await withServices(config, (s) => s.listApiKeys(o.org));
  await printResult(
    !!o.json,
    { keys },
    keys.length
      ? keys.map((k) => `${k.keyId}  ${k.prefix}  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`).join('\n')
      : 'No keys.',
  );
}

export async function originAdd(config: AppConfig, o: Json & { org: string; origin: string }): Promise<void> {
  const r = await withServices(config, (s) => s.addOrigin(o.org, o.origin));
  await printResult(!!o.json, { ...r }, r.added ? `Approved ${r.origin} for ${r.organizationId}.` : `${r.origin} was already approved.`);
}

export async function originRemove(config: AppConfig, o: Json & { org: string; origin: string }): Promise<void> {
  const r = await withServices(config, (s) => s.removeOrigin(o.org, o.origin));
  await printResult(
    !!o.json,
    { ...r },
    r.removed ? `Removed ${r.origin}; its live embed sessions have ended.` : `${r.origin} was not approved.`,
  );
}

export async function originList(config: AppConfig, o: Json & { org: string }): Promise<void> {
  const org = await withServices(config, (s) => s.getOrganization(o.org));
  await printResult(
    !!o.json,
    { organizationId: org.organizationId, origins: org.origins },
    org.origins.join('\n') || 'No approved origins.',
  );
}

export async function webhookCreate(config: AppConfig, o: Json & { org: string; url: string; event: string[] }): Promise<void> {
  const r = await withWebhooks(config, o.org, (w, owner) => w.create(owner, { url: o.url, events: o.event as WebhookEventType[] }));
  await printResult(
    !!o.json,
    { ...r },
    [`Created webhook endpoint ${endpointLine(r)}`, `Signing secret: ${r.secret}`, 'Store this secret now: it is shown only once.'].join(
      '\n',
    ),
  );
}

export async function webhookList(config: AppConfig, o: Json & { org: string }): Promise<void> {
  const endpoints = await withWebhooks(config, o.org, async (w, owner) => {
    // Every page: an organization may hold more than the limit from before it existed.
    const all: WebhookEndpointResponse[] = [];
    for (let after: string | null = null; ;) {
      const page = await w.list(owner.organizationId, after, WEBHOOK_LIMITS.page.max);
      all.push(...page.items);
      if (!page.nextCursor) return all;
      after = page.nextCursor;
    }
  });
  await printResult(!!o.json, { endpoints }, endpoints.map(endpointLine).join('\n') || 'No webhook endpoints.');
}

export async function webhookSetEnabled(config: AppConfig, o: Json & { org: string; endpoint: string }, enabled: boolean): Promise<void> {
  const r = await withWebhooks(config, o.org, (w, owner) => w.update(owner, o.endpoint, { enabled }));
  await printResult(!!o.json, { ...r }, endpointLine(r));
}

export async function webhookRotate(
  config: AppConfig,
  o: Json & { org: string; endpoint: string; overlapSeconds?: string },
): Promise<void> {
  const overlap = o.overlapSeconds === undefined ? undefined : Number(o.overlapSeconds);
  if (overlap !== undefined && (!Number.isInteger(overlap) || overlap < 0 || overlap > 604_800)) {
    throw new Error('--overlap-seconds must be an integer from 0 to 604800');
  }
  const r = await withWebhooks(config, o.org, (w, owner) => w.rotateSecret(owner.organizationId, o.endpoint, overlap));
  await printResult(
    !!o.json,
    { ...r },
    [`New signing secret for ${r.webhookEndpointId}: ${r.secret}`, 'Store this secret now: it is shown only once.'].join('\n'),
  );
}

export async function webhookDelete(config: AppConfig, o: Json & { org: string; endpoint: string }): Promise<void> {
  await withWebhooks(config, o.org, (w, owner) => w.delete(owner.organizationId, o.endpoint));
  await printResult(!!o.json, { webhookEndpointId: o.endpoint, deleted: true }, `Deleted ${o.endpoint} (if it existed).`);
}

/** A whole number as the CLI takes it: digits only, so "1e3" or "10x" are refused, not guessed. */
function wholeNumber(flag: string, value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new Error(`${flag} must be a whole number`);
  return Number(value);
}

export async function orgLimits(
  config: AppConfig,
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
  const limits = await withServices(config, async (orgs, app) => {
    await orgs.getOrganization(o.org);
    const service = app.get(LimitsService);
    return Object.keys(change).length > 0 ? service.change(o.org, change) : service.of(o.org);
  });
  await printResult(
    !!o.json,
    { organizationId: o.org, ...limits },
    `${o.org}: at most ${limits.maxConcurrentGenerations} generations at once, ${limits.generationsPerDay ?? 'unlimited'} per day (UTC), ${limits.maxWaitingGenerations} waiting.`,
  );
}

export async function usage(config: AppConfig, o: Json & { org: string; from?: string; to?: string }): Promise<void> {
  const report = await withServices(config, async (orgs, app) => {
    await orgs.getOrganization(o.org);
    return app.get(UsageService).report(o.org, { from: o.from, to: o.to });
  });
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
