import { LimitsService } from '@app/tenancy';
import { DataSource } from 'typeorm';
import { createScene } from '../factories/scene.factory';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';

/**
 * A cancelled or deleted generation keeps its organization's slot until its work has really ended:
 * Marble cannot cancel a world, so a partner limited to 1 at a time that cancels and creates again
 * must never have two worlds generating at the provider, and what the cancelled worlds cost is
 * counted in its usage. What the partner sees of the cancel does not change: `failed` with
 * `cancelled` at once.
 */

describe('cancel and delete keep the slot until the provider is done (Marble fake)', () => {
  let fake: FakeWorldLabs;
  beforeAll(async () => {
    fake = await FakeWorldLabs.start({ jobDurationMs: 500 });
  });
  afterAll(async () => {
    await fake?.close();
  });

  const suite = setUpSuite(() => ({
    worker: {
      config: fake.workerConfig(),
    },
  }));
  const db = () => suite.api.app.get(DataSource);
  const backlog = async (organizationId: string) =>
    (await db().query(`SELECT waiting, running FROM organization_backlogs WHERE organization_id = $1`, [organizationId]))[0] as {
      waiting: number;
      running: number;
    };

  it('limit 1, four cancel-then-create rounds (one a deletion): never two worlds at once at Marble; their cost in usage', async () => {
    const org = suite.org;
    await suite.api.app.get(LimitsService).change(org.organizationId, { maxConcurrentGenerations: 1 });
    // Worlds end when the test says (fake.finish), so each round sees its world still generating.
    fake.behaviour = 'never-finishes';
    const submitted = fake.submits;
    let next = (await createScene(suite.api, org, { prompt: 'round 0' })).body.operationId as string;
    for (let round = 0; round < 4; round++) {
      const id = next;
      // Its world is generating at Marble (the slot of the round before freed only when that world ended).
      await pollUntil(
        () => Promise.resolve(fake.submits),
        (n) => n === submitted + round + 1,
        { timeoutMs: 30_000, what: `round ${round}'s world to start at Marble` },
      );
      const world = (await pollUntil(
        async () =>
          (await db().query(`SELECT provider_job ->> 'id' AS world FROM operations WHERE id = $1`, [id]))[0].world as string | null,
        (w) => w !== null,
        { what: `round ${round}'s provider job to be recorded` },
      ))!;
      if (round === 2) {
        // Deleting the scene takes the same path.
        const sceneId = (await db().query(`SELECT scene_id FROM operations WHERE id = $1`, [id]))[0].scene_id as string;
        expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(org.auth)).status).toBe(204);
      } else {
        const cancelled = await suite.api.http().post(`/v1/operations/${id}:cancel`).set(org.auth);
        // What the partner sees is unchanged: failed with cancelled, at once.
        expect(cancelled.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
        expect((await suite.api.http().get(`/v1/operations/${id}`).set(org.auth)).body).toEqual(cancelled.body);
      }
      // The slot stays taken while the world is made: the organization still runs one, and usage says so.
      expect((await db().query(`SELECT status, stage FROM operations WHERE id = $1`, [id]))[0]).toEqual({
        status: 'failed',
        stage: 'cancelling',
      });
      expect((await suite.api.http().get('/v1/usage').set(org.auth)).body.inFlight).toEqual({
        generationsWaiting: 0,
        generationsRunning: 1,
        generationsCancelling: 1,
      });
      // The partner creates again at once; that one waits for the slot.
      if (round < 3) next = (await createScene(suite.api, org, { prompt: `round ${round + 1}` })).body.operationId as string;
      expect(fake.submits).toBe(submitted + round + 1);
      fake.finish(world);
    }
    // The last world ends, and with it the last slot.
    await pollUntil(
      () => backlog(org.organizationId),
      (b) => b.running === 0,
      { timeoutMs: 30_000, what: 'the last cancelled world to end and free its slot' },
    );
    expect(fake.maxGenerating).toBe(1);
    expect(fake.submits).toBe(submitted + 4);
    const usage = await pollUntil(
      async () => (await suite.api.http().get('/v1/usage').set(org.auth)).body,
      (b) => b.totals?.providerCostUnits === 4 * 1500,
      { what: 'the four worlds to be counted' },
    );
    expect(usage.totals).toMatchObject({ generationsCancelled: 3, generationsFailed: 1, providerCostUnits: 6000 });
    expect(usage.inFlight).toEqual({ generationsWaiting: 0, generationsRunning: 0, generationsCancelling: 0 });
    expect(await db().query(`SELECT count(*)::int AS n FROM operations WHERE stage = 'cancelling'`)).toEqual([{ n: 0 }]);
  }, 120_000);
});
