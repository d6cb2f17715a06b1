import { OrganizationsModule, OrganizationsService } from '@app/organizations';
import { WEBHOOK_LIMITS, WebhookEndpointResponse, WebhookEndpointsService, WebhookEventType, WebhooksModule } from '@app/webhooks';
import { withContext } from './cli-context';
import { Json, printResult } from './output';

/** Runs `fn` with the webhook endpoints service and the organization as its owner (test or live). */
function withWebhooks<T>(
  organizationId: string,
  fn: (webhooks: WebhookEndpointsService, owner: { organizationId: string; isTest: boolean }) => Promise<T>,
): Promise<T> {
  return withContext([OrganizationsModule, WebhooksModule], async (app) => {
    const org = await app.get(OrganizationsService).getOrganization(organizationId);
    return fn(app.get(WebhookEndpointsService), { organizationId: org.organizationId, isTest: org.test });
  });
}

const endpointLine = (e: WebhookEndpointResponse) =>
  `${e.webhookEndpointId}  ${e.enabled ? 'enabled' : `disabled (${e.disabledReason})`}  ${e.url}  events: ${e.events.join(', ')}`;

export async function webhookCreate(o: Json & { org: string; url: string; event: string[] }): Promise<void> {
  const r = await withWebhooks(o.org, (w, owner) => w.create(owner, { url: o.url, events: o.event as WebhookEventType[] }));
  await printResult(
    !!o.json,
    { ...r },
    [`Created webhook endpoint ${endpointLine(r)}`, `Signing secret: ${r.secret}`, 'Store this secret now: it is shown only once.'].join(
      '\n',
    ),
  );
}

export async function webhookList(o: Json & { org: string }): Promise<void> {
  const endpoints = await withWebhooks(o.org, async (w, owner) => {
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

export async function webhookSetEnabled(o: Json & { org: string; endpoint: string }, enabled: boolean): Promise<void> {
  const r = await withWebhooks(o.org, (w, owner) => w.update(owner, o.endpoint, { enabled }));
  await printResult(!!o.json, { ...r }, endpointLine(r));
}

export async function webhookRotate(o: Json & { org: string; endpoint: string; overlapSeconds?: string }): Promise<void> {
  const overlap = o.overlapSeconds === undefined ? undefined : Number(o.overlapSeconds);
  if (overlap !== undefined && (!Number.isInteger(overlap) || overlap < 0 || overlap > 604_800)) {
    throw new Error('--overlap-seconds must be an integer from 0 to 604800');
  }
  const r = await withWebhooks(o.org, (w, owner) => w.rotateSecret(owner.organizationId, o.endpoint, overlap));
  await printResult(
    !!o.json,
    { ...r },
    [`New signing secret for ${r.webhookEndpointId}: ${r.secret}`, 'Store this secret now: it is shown only once.'].join('\n'),
  );
}

export async function webhookDelete(o: Json & { org: string; endpoint: string }): Promise<void> {
  await withWebhooks(o.org, (w, owner) => w.delete(owner.organizationId, o.endpoint));
  await printResult(!!o.json, { webhookEndpointId: o.endpoint, deleted: true }, `Deleted ${o.endpoint} (if it existed).`);
}
