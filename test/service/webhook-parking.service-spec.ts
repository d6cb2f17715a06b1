import { WebhooksModule } from '@app/webhooks';
import { WebhooksDataModule } from '@app/webhooks/webhooks-data.module';
import { WebhookHealthRepository } from '@app/webhooks/webhook-health.repository';
import { WebhooksRepository } from '@app/webhooks/webhooks.repository';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { webhookEndpoint } from '../factories/webhook.factory';
import { setUpServices } from '../support/services';

// The same CommonJS module `npm run lint` and repository-queries use.
const { statementsOf } = require('../../scripts/repository-queries.js') as {
  statementsOf(queriesFile: string, entry: string): string[];
};

/** The repositories alone: a dispatcher would claim the deliveries planted below. */
@Module({ imports: [WebhooksModule, WebhooksDataModule] })
class WebhookDataOnlyModule {}

/** The claim's statement exactly as the repository runs it (checked in, kept in sync by repository-queries). */
const [CLAIM] = statementsOf('libs/webhooks/src/queries/webhooks.repository.sql', 'WebhooksRepository.claimDue');

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every row a plan's nodes read and threw away (filters, join filters, rechecks), summed. */
function rowsThrownAway(node: PlanNode): number {
  const own = Object.entries(node)
    .filter(([key]) => key.startsWith('Rows Removed by'))
    .reduce((sum, [, value]) => sum + (value as number), 0);
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsThrownAway(child), 0);
}

/**
 * A disabled endpoint's pending deliveries wait parked, out of the index the dispatcher claims
 * from: the claim (twice a second per worker) costs what can be sent, not what waits. The
 * endpoint's `enabled` stays the rule; parking follows it on every path that changes it.
 */
describe('webhook deliveries of a disabled endpoint wait parked', () => {
  const suite = setUpServices({ imports: [WebhookDataOnlyModule] });
  const webhooks = () => suite.app.get(WebhooksRepository);
  const db = () => suite.app.get(DataSource);
  let org: TestOrganization;
  const now = () => new Date();

  const endpoint = (id: string) => webhookEndpoint(org.organizationId, id, `https://hooks.example.com/${id}`, ['scene.deleted'], now());

  /** `n` scene.deleted events, through the outbox's statement (to every enabled endpoint). */
  async function events(prefix: string, n: number): Promise<void> {
    await webhooks().transaction((tx) =>
      webhooks().insertMessages(
        tx,
        org.organizationId,
        'scene.deleted',
        Array.from({ length: n }, (_, i) => ({
          id: `msg_${prefix}_${String(i).padStart(5, '0')}`,
          body: { type: 'scene.deleted', timestamp: now().toISOString(), data: { sceneId: `scn_${i}` } },
        })),
        now(),
      ),
    );
  }

  const parkedOf = async (endpointId: string) =>
    (
      await db().query<{ parked: boolean; n: number }[]>(
        `SELECT parked, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' GROUP BY parked ORDER BY parked`,
        [endpointId],
      )
    ).map((r) => `${r.parked ? 'parked' : 'sendable'} ${r.n}`);

  const claim = (limit: number) => webhooks().claimDue(new Date(Date.now() + 1000), new Date(Date.now() + 60_000), limit);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
    await webhooks().transaction(async (tx) => {
      await webhooks().insertEndpoint(tx, endpoint('whe_on'));
      await webhooks().insertEndpoint(tx, endpoint('whe_off'));
    });
  });

  it("parks a partner-disabled endpoint's backlog, claims around it without reading it, and sends it once enabled again", async () => {
    await events('both', 3);
    await webhooks().transaction((tx) => webhooks().updateEndpoint(tx, org.organizationId, 'whe_off', { enabled: false }, now()));
    // Events while it is disabled are written for the enabled endpoint only.
    await events('on_only', 2);
    await db().query(
      `INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
       SELECT 'msg_backlog_' || n, $1, 'scene.deleted', '{}', now() - interval '1 day' FROM generate_series(1, 5000) AS n`,
      [org.organizationId],
    );
    await db().query(
      `INSERT INTO webhook_deliveries (endpoint_id, message_id, status, next_attempt_at, created_at)
       SELECT 'whe_off', id, 'pending', now() - interval '1 day', now() - interval '1 day' FROM webhook_messages WHERE id LIKE 'msg_backlog_%'`,
    );
    // The backlog was written unparked (as by an outbox write that raced the disabling): saving
    // the endpoint disabled again parks it, and only it.
    await webhooks().transaction((tx) => webhooks().updateEndpoint(tx, org.organizationId, 'whe_off', { enabled: false }, now()));
    expect(await parkedOf('whe_off')).toEqual(['parked 5003']);
    expect(await parkedOf('whe_on')).toEqual(['sendable 5']);
    await db().query(`ANALYZE webhook_deliveries`);

    const claimed = await claim(100);
    expect(claimed.map((d) => d.endpointId)).toEqual(Array(5).fill('whe_on'));
    // With the enabled endpoint's deliveries leased, nothing is due: the claim reads no row of the
    // 5 003 parked ones, nor does the oldest-due gauge find one.
    const runner = db().createQueryRunner();
    await runner.connect();
    let plans: { Plan: PlanNode }[];
    try {
      // EXPLAIN ANALYZE runs the statement: in a transaction rolled back, so nothing is claimed.
      await runner.startTransaction();
      [{ 'QUERY PLAN': plans }] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM}`, [
        new Date(Date.now() + 1000),
        new Date(Date.now() + 60_000),
        16,
      ]);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    expect(rowsThrownAway(plans[0].Plan)).toBe(0);
    expect(await new WebhookHealthRepository(db()).oldestDue(new Date(Date.now() + 1000))).toBeNull();

    // Enabled again: every parked delivery is sendable, and claimed.
    await webhooks().transaction((tx) => webhooks().updateEndpoint(tx, org.organizationId, 'whe_off', { enabled: true }, now()));
    expect(await parkedOf('whe_off')).toEqual(['sendable 5003']);
    expect((await claim(10)).map((d) => d.endpointId)).toEqual(Array(10).fill('whe_off'));
  });

  it('parks the backlog of an endpoint disabled for failing, and a replay to a disabled endpoint waits parked', async () => {
    await events('failing', 4);
    // Failing since ten days, past the hour allowed: disabled, and its pending deliveries parked.
    const tenDaysAgo = new Date(Date.now() - 10 * 24 * 3600_000);
    expect(await webhooks().markEndpointFailing('whe_on', tenDaysAgo, new Date(Date.now() - 3600_000))).toBe(true);
    expect(await parkedOf('whe_on')).toEqual(['parked 9']);
    expect(await webhooks().markEndpointFailing('whe_on', now(), new Date(Date.now() - 3600_000))).toBe(false);

    const replayed = await webhooks().replay(org.organizationId, 'whe_on', 'msg_failing_00000', now());
    expect(replayed).toMatchObject({ status: 'pending', parked: true });
    await webhooks().transaction((tx) => webhooks().updateEndpoint(tx, org.organizationId, 'whe_on', { enabled: true }, now()));
    expect(await parkedOf('whe_on')).toEqual(['sendable 9']);
  });
});
