import { DomainError, ManualClock, rawQuery, runInTransaction } from '@app/core';
import { ScenesService } from '@app/scenes';
import {
  GenerationAdmission,
  OperationOutcomes,
  OperationRetention,
  OperationsReconciler,
  OperationsService,
  SceneGenerationProcessor,
  ScenePurge,
  OperationsWorkerModule,
  SceneOperationsService,
} from '@app/operations';
import { LimitsService } from '@app/tenancy';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';

/** What the processor reads of a BullMQ job: the first of three attempts. */
const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;
const DAY_MS = 86_400_000;

/** A small seeded generator (mulberry32): a failing seed replays the same sequence. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Refusals a random transition may meet; anything else (a deadlock above all) fails the test. */
const EXPECTED = new Set([
  'quota_exceeded',
  'max_waiting_generations_exceeded',
  'scene_not_ready',
  'edit_in_progress',
  'not_found',
  'external_ref_conflict',
]);

/**
 * The per-organization counts admission reads (`organization_backlogs`: generations waiting for
 * their turn, and admitted ones running or still holding their slot after a cancel) against the
 * operations themselves, after random sequences of every transition an operation has — accepted
 * (creations, edits, reverts, refused by the daily quota or the waiting cap), admitted, started,
 * succeeded, failed, cancelled (waiting, admitted, or started: then its slot is held until the
 * worker sees its work end), ended by its scene's deletion, the reconciler's pass, the purge of deleted
 * scenes and the erasure of their old operations — several seeds at once on the same
 * organizations, with the background admission loop running too.
 */
describe('the backlog counts stay exact through every transition, concurrently', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T12:00:00.000Z'));
  const suite = setUpServices({
    imports: [OperationsWorkerModule],
    clock,
    config: { RECONCILE_GRACE_MS: '100', OPERATION_RETENTION_DAYS: '1' },
  });
  const db = () => suite.app.get(DataSource);
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const orgs: TestOrganization[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) orgs.push(await createOrganization(suite.app));
    // One organization with a small waiting cap and one with a daily quota, so both refusals happen.
    await suite.app.get(LimitsService).change(orgs[1].organizationId, { maxWaitingGenerations: 4, maxConcurrentGenerations: 2 });
    await suite.app.get(LimitsService).change(orgs[2].organizationId, { generationsPerDay: 25, maxConcurrentGenerations: 1 });
  });

  type Counts = Record<string, { waiting: number; running: number; cancelling: number }>;

  type Reader = Pick<DataSource, 'query'>;

  async function counted(q: Reader): Promise<Counts> {
    const rows: { organization_id: string; waiting: number; running: number; cancelling: number }[] = await q.query(
      `SELECT organization_id, waiting, running, cancelling FROM organization_backlogs WHERE organization_id = ANY($1)`,
      [orgs.map((o) => o.organizationId)],
    );
    return Object.fromEntries(rows.map((r) => [r.organization_id, { waiting: r.waiting, running: r.running, cancelling: r.cancelling }]));
  }

  async function actual(q: Reader): Promise<Counts> {
    const rows: { organization_id: string; waiting: number; running: number; cancelling: number }[] = await q.query(
      `SELECT o.id AS organization_id,
              count(op.id) FILTER (WHERE op.status = 'processing' AND op.admitted_at IS NULL)::int AS waiting,
              count(op.id) FILTER (WHERE (op.status = 'processing' OR op.stage = 'cancelling') AND op.admitted_at IS NOT NULL)::int AS running,
              count(op.id) FILTER (WHERE op.stage = 'cancelling')::int AS cancelling
         FROM unnest($1::text[]) AS o (id) LEFT JOIN operations op ON op.organization_id = o.id
        GROUP BY o.id`,
      [orgs.map((o) => o.organizationId)],
    );
    return Object.fromEntries(rows.map((r) => [r.organization_id, { waiting: r.waiting, running: r.running, cancelling: r.cancelling }]));
  }

  /**
   * The counts and the aggregates, read from one snapshot (REPEATABLE READ): the background
   * admission loop may admit an operation between two separate reads, which would move one from
   * waiting to running in the second only.
   */
  const both = () => db().transaction('REPEATABLE READ', async (em) => ({ counted: await counted(em), actual: await actual(em) }));
  const expectCountsExact = async () => {
    const { counted: c, actual: a } = await both();
    expect(c).toEqual(a);
  };

  const processing = async (organizationId: string, admitted?: boolean): Promise<{ id: string; scene_id: string; kind: string }[]> =>
    db().query(
      `SELECT id, scene_id, kind FROM operations WHERE organization_id = $1 AND status = 'processing'
          ${admitted === undefined ? '' : admitted ? 'AND admitted_at IS NOT NULL' : 'AND admitted_at IS NULL'}`,
      [organizationId],
    );
  const scenesOf = async (organizationId: string, status?: string): Promise<{ id: string; current_version: number | null }[]> =>
    db().query(
      `SELECT id, current_version FROM scenes WHERE organization_id = $1 AND deleted_at IS NULL ${status ? 'AND status = $2' : ''}`,
      status ? [organizationId, status] : [organizationId],
    );

  async function step(next: () => number, tally: Map<string, number>): Promise<void> {
    const pick = <T>(list: T[]): T | undefined => (list.length === 0 ? undefined : list[Math.floor(next() * list.length)]);
    const org = pick(orgs)!.organizationId;
    const roll = next();
    const note = (what: string) => void tally.set(what, (tally.get(what) ?? 0) + 1);
    try {
      if (roll < 0.3) {
        const ref = next() < 0.3 ? `ref-${Math.floor(next() * 5)}` : undefined;
        await sceneOperations().create(
          org,
          { key: randomUUID(), scope: 'POST /v1/scenes' },
          { prompt: 'A harbour at dawn', externalRef: ref },
        );
        note('accepted');
      } else if (roll < 0.45) {
        await suite.app.get(GenerationAdmission).round();
        note('admission round');
      } else if (roll < 0.52) {
        // A worker's start (what SceneGenerationProcessor records before it sends anything), so a
        // cancel or a deletion then meets work that goes on and keeps its slot.
        const op = pick(await processing(org, true));
        if (!op) return;
        await db().query(`UPDATE operations SET stage = 'generating', started_at = now() WHERE id = $1 AND status = 'processing'`, [op.id]);
        note('started');
      } else if (roll < 0.56) {
        // The worker following a cancelled generation's work to its end: its slot is freed.
        const [op] = await db().query(`SELECT id, kind FROM operations WHERE organization_id = $1 AND stage = 'cancelling' LIMIT 1`, [org]);
        if (!op) return;
        const processor = suite.app.get(SceneGenerationProcessor);
        await (op.kind === 'scene.edit'
          ? processor.edit({ operationId: op.id }, firstAttempt)
          : processor.generate({ operationId: op.id }, firstAttempt));
        note('slot released');
      } else if (roll < 0.6) {
        const op = pick(await processing(org, true));
        if (!op) return;
        const processor = suite.app.get(SceneGenerationProcessor);
        await (op.kind === 'scene.edit'
          ? processor.edit({ operationId: op.id }, firstAttempt)
          : processor.generate({ operationId: op.id }, firstAttempt));
        note('started and ended by the worker');
      } else if (roll < 0.68) {
        const op = pick(await processing(org));
        if (!op) return;
        // The worker's failure path: scene first, then the operation's end (SceneGenerationProcessor.fail).
        await runInTransaction(db(), async (tx) => {
          await rawQuery(tx, `SELECT id FROM scenes WHERE id = $1 FOR UPDATE`, [op.scene_id]);
          await suite.app
            .get(OperationOutcomes)
            .failed(tx, op.id, { code: 'generation_failed', message: 'failed', retryable: false }, clock.now());
        });
        note('failed');
      } else if (roll < 0.78) {
        const op = pick(await processing(org));
        if (!op) return;
        await suite.app.get(OperationsService).cancel(org, op.id);
        note('cancelled');
      } else if (roll < 0.84) {
        const scene = pick(await scenesOf(org));
        if (!scene) return;
        await scenes().delete(org, scene.id);
        note('scene deleted');
      } else if (roll < 0.94) {
        const scene = pick(await scenesOf(org, 'ready'));
        if (!scene) return;
        if (next() < 0.5) await sceneOperations().requestEdit(org, scene.id, 'Make it winter');
        else await sceneOperations().requestRevert(org, scene.id, 1);
        note('edit or revert accepted');
      } else {
        // Past the reconciler's grace, so it looks at every admitted operation.
        clock.advance(1000);
        await suite.app.get(OperationsReconciler).reconcile();
        note('reconciler pass');
      }
    } catch (e) {
      if (e instanceof DomainError && EXPECTED.has(e.code)) return note(`refused: ${e.code}`);
      throw e;
    }
  }

  it('equal the aggregates of the operations after 4 seeds × 150 random transitions at once, then purges', async () => {
    const tallies = await Promise.all(
      [11, 23, 37, 41].map(async (seed) => {
        const next = random(seed);
        const tally = new Map<string, number>();
        for (let i = 0; i < 150; i++) await step(next, tally);
        return tally;
      }),
    );
    const seen = new Set(tallies.flatMap((t) => [...t.keys()]));
    // Every kind of transition happened (a random run that skipped one would prove less).
    for (const what of [
      'accepted',
      'admission round',
      'started and ended by the worker',
      'failed',
      'cancelled',
      'scene deleted',
      'edit or revert accepted',
      'reconciler pass',
      'started',
      'slot released',
      'refused: max_waiting_generations_exceeded',
      'refused: quota_exceeded',
    ]) {
      expect([what, seen.has(what)]).toEqual([what, true]);
    }
    await expectCountsExact();

    // The erasures: deleted scenes purged, and (a day later) their ended operations deleted.
    await suite.app.get(ScenesService).delete(orgs[0].organizationId, (await scenesOf(orgs[0].organizationId))[0]?.id ?? 'scn_none');
    await suite.app.get(ScenePurge).purgeDeleted();
    clock.advance(2 * DAY_MS);
    expect((await suite.app.get(OperationRetention).purgeOld()).operations).toBeGreaterThan(0);
    await expectCountsExact();

    // And admission drains what waits: every count goes back to what the operations say.
    for (let i = 0; i < 20; i++) await suite.app.get(GenerationAdmission).round();
    await expectCountsExact();
  });
});
