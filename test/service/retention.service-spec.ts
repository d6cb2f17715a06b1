import { AppConfig, ManualClock } from '@app/core';
import { EMBED_SESSIONS_CONFIG, EmbedSessionRetention, EmbedSessionsService } from '@app/embed-sessions';
import { OrganizationsService } from '@app/organizations';
import { ScenesService } from '@app/scenes';
import {
  OperationRetention,
  OPERATIONS_CONFIG,
  OperationsService,
  SceneGenerationProcessor,
  ScenePurge,
  OperationsWorkerModule,
  SceneOperationsService,
} from '@app/operations';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { untilAdmitted } from '../support/admission';
import { setUpServices, ServiceSuite } from '../support/services';

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60_000;
const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;

/** What the retention tests need of a suite: ready scenes, sessions, and the rows behind them. */
function helpers(suite: ServiceSuite, org: () => TestOrganization) {
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const db = () => suite.app.get(DataSource);
  return {
    db,
    async readyScene(): Promise<{ sceneId: string; operationId: string }> {
      const externalRef = `keep-${randomUUID()}`;
      const created = await sceneOperations().create(
        org().organizationId,
        { key: randomUUID(), scope: 'POST /v1/scenes' },
        { prompt: 'A pine forest by a lake', externalRef },
      );
      await suite.app.get(SceneGenerationProcessor).generate({ operationId: created.value.operationId }, firstAttempt);
      return {
        sceneId: (await scenes().findByExternalRef(org().organizationId, externalRef))!.sceneId,
        operationId: created.value.operationId,
      };
    },
    async session(sceneId: string, expiresInSeconds = 3600, origin = 'http://localhost:5173'): Promise<string> {
      const principal = { organizationId: org().organizationId, keyId: org().keyId, isTest: true };
      return (await suite.app.get(EmbedSessionsService).create(principal, { sceneId, origin, mode: 'perform', expiresInSeconds }))
        .embedSessionId;
    },
    async sessionIds(): Promise<string[]> {
      const rows = await db().query<{ id: string }[]>(`SELECT id FROM embed_sessions WHERE organization_id = $1 ORDER BY id`, [
        org().organizationId,
      ]);
      return rows.map((r) => r.id);
    },
    async operationIds(): Promise<string[]> {
      const rows = await db().query<{ id: string }[]>(`SELECT id FROM operations WHERE organization_id = $1 ORDER BY id`, [
        org().organizationId,
      ]);
      return rows.map((r) => r.id);
    },
  };
}

/**
 * Retention (docs/operations.md, "Data we keep") with the clock moved by hand: ended embed sessions and finished
 * operations of deleted scenes are erased 30 days after they ended (webhook deliveries:
 * test/service/webhook-retention.service-spec.ts), and each period is a setting.
 */
describe('retention of ended data on a real database', () => {
  const t0 = Date.parse('2026-03-01T12:00:00.000Z');
  const clock = new ManualClock(t0);
  const suite = setUpServices({ imports: [OperationsWorkerModule], clock });
  let org: TestOrganization;
  const h = helpers(suite, () => org);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });

  it('the defaults are the documented 30 days', () => {
    expect(suite.app.get(AppConfig).slice(EMBED_SESSIONS_CONFIG).retentionMs).toBe(30 * DAY);
    expect(suite.app.get(AppConfig).slice(OPERATIONS_CONFIG).operationRetentionMs).toBe(30 * DAY);
  });

  it('erases the finished operations of a deleted scene 30 days after they ended; a live scene keeps its operations', async () => {
    const retention = suite.app.get(OperationRetention);
    const before = new Set(await h.operationIds());
    // A scene made 40 days before its deletion: its creation ended then.
    clock.set(t0 - 40 * DAY);
    const old = await h.readyScene();
    clock.set(t0);
    const doomed = await h.readyScene();
    const edit = await suite.app.get(SceneOperationsService).requestEdit(org.organizationId, doomed.sceneId, 'Add fog');
    await suite.app.get(SceneGenerationProcessor).edit({ operationId: edit.operationId }, firstAttempt);
    const live = await h.readyScene();
    await suite.app.get(ScenesService).delete(org.organizationId, old.sceneId);
    await suite.app.get(ScenesService).delete(org.organizationId, doomed.sceneId);
    expect(await suite.app.get(ScenePurge).purgeDeleted()).toMatchObject({ scenes: 2 });
    const ours = async () => (await h.operationIds()).filter((id) => !before.has(id));

    // The old scene's creation ended more than 30 days ago: it goes at the first run.
    expect(await retention.purgeOld()).toEqual({ operations: 1 });
    expect(await ours()).toEqual([doomed.operationId, edit.operationId, live.operationId].sort());
    clock.set(t0 + 30 * DAY - MINUTE);
    expect(await retention.purgeOld()).toEqual({ operations: 0 });
    clock.set(t0 + 30 * DAY + MINUTE);
    expect(await retention.purgeOld()).toEqual({ operations: 2 });
    expect(await ours()).toEqual([live.operationId]);
    // The tombstones stay, and hide as before.
    const tombstones = await h
      .db()
      .query<{ id: string }[]>(`SELECT id FROM scenes WHERE id = ANY($1) AND purged_at IS NOT NULL`, [[old.sceneId, doomed.sceneId]]);
    expect(tombstones).toHaveLength(2);
    expect(await suite.app.get(OperationsService).get(org.organizationId, doomed.operationId)).toBeNull();
    expect(await suite.app.get(ScenesService).get(org.organizationId, doomed.sceneId)).toBeNull();
  });

  it('keeps an ended operation whose work still holds its slot past retention, then erases it once the work ends', async () => {
    const retention = suite.app.get(OperationRetention);
    clock.set(t0 + 100 * DAY);
    const created = await suite.app
      .get(SceneOperationsService)
      .create(org.organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt: 'A quarry in rain' });
    const operationId = created.value.operationId;
    // Admitted and started by a worker, then its scene deleted: it ends for the partner, and its
    // slot stays held (stage cancelling) until the worker sees the work end.
    await untilAdmitted(suite.app, operationId);
    await h.db().query(`UPDATE operations SET started_at = now(), stage = 'generating' WHERE id = $1`, [operationId]);
    const [{ scene_id: sceneId }] = await h.db().query(`SELECT scene_id FROM operations WHERE id = $1`, [operationId]);
    await suite.app.get(ScenesService).delete(org.organizationId, sceneId);
    await suite.app.get(ScenePurge).purgeDeleted();
    const stage = async () => (await h.db().query(`SELECT stage FROM operations WHERE id = $1`, [operationId]))[0]?.stage;
    expect(await stage()).toBe('cancelling');

    // Long past retention: erasing it would lose the slot for good (nothing would release it).
    clock.set(t0 + 200 * DAY);
    await retention.purgeOld();
    expect(await stage()).toBe('cancelling');
    // The worker follows the work to its end; the operation stops holding its slot and goes.
    await suite.app.get(SceneGenerationProcessor).generate({ operationId }, firstAttempt);
    expect(await stage()).toBeNull();
    expect(await retention.purgeOld()).toEqual({ operations: 1 });
    expect(await stage()).toBeUndefined();
  });

  it('erases an embed session 30 days after it ended — revoked, expired (once its end was reported) or its scene deleted — never an active one', async () => {
    const retention = suite.app.get(EmbedSessionRetention);
    const sessions = suite.app.get(EmbedSessionsService);
    clock.set(t0);
    const live = await h.readyScene();
    const doomed = await h.readyScene();
    const revoked = await h.session(live.sceneId);
    const expiring = await h.session(live.sceneId, 300);
    const deletedWith = await h.session(doomed.sceneId);
    await sessions.revoke(org.organizationId, revoked);
    await suite.app.get(ScenesService).delete(org.organizationId, doomed.sceneId);
    // The deletion's follow-up job, as a worker runs it: the session's end is recorded.
    await suite.app.get(ScenePurge).finishDeletion({ sceneId: doomed.sceneId });
    clock.set(t0 + 10 * MINUTE);
    expect(await sessions.endExpired()).toEqual({ ended: 1 });
    // Expired at t0 + 15 min, its end not reported yet (the job that reports it has not run again).
    const unreported = await h.session(live.sceneId, 300);

    clock.set(t0 + 30 * DAY - MINUTE);
    expect(await retention.purgeEnded()).toEqual({ sessions: 0 });
    clock.set(t0 + 30 * DAY + 20 * MINUTE);
    const active = await h.session(live.sceneId);
    expect(await retention.purgeEnded()).toEqual({ sessions: 3 });
    expect(await h.sessionIds()).toEqual([unreported, active].sort());
    // Its end is reported first (the `embed_session.ended` webhook), then it goes.
    expect(await sessions.endExpired()).toEqual({ ended: 1 });
    expect(await retention.purgeEnded()).toEqual({ sessions: 1 });
    expect(await h.sessionIds()).toEqual([active]);
    // The erased ones are unknown now: nothing to extend, nothing to authenticate.
    await expect(sessions.extend(org.organizationId, expiring, { expiresInSeconds: 600 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reports an expired session once, as expired, when its partner revokes it, its origin goes or its scene is deleted before the report', async () => {
    const sessions = suite.app.get(EmbedSessionsService);
    const organizations = suite.app.get(OrganizationsService);
    const t = t0 + 200 * DAY;
    clock.set(t);
    await sessions.endExpired(); // what earlier tests left unreported
    const origin = 'https://retention.example';
    await organizations.addOrigin(org.organizationId, origin);
    const live = await h.readyScene();
    const doomed = await h.readyScene();
    const revoked = await h.session(live.sceneId, 300);
    await h.session(live.sceneId, 300, origin);
    await h.session(doomed.sceneId, 300);
    // All three expired, none reported yet (the sweep runs every 30 s), when they are ended again.
    clock.set(t + 10 * MINUTE);
    await sessions.revoke(org.organizationId, revoked);
    await organizations.removeOrigin(org.organizationId, origin);
    await suite.app.get(ScenesService).delete(org.organizationId, doomed.sceneId);
    expect(await sessions.endExpired()).toEqual({ ended: 3 });
    expect(await sessions.endExpired()).toEqual({ ended: 0 });
  });
});

describe('retention periods set by EMBED_SESSION_RETENTION_DAYS and OPERATION_RETENTION_DAYS', () => {
  const t0 = Date.parse('2026-03-01T12:00:00.000Z');
  const clock = new ManualClock(t0);
  const suite = setUpServices({
    imports: [OperationsWorkerModule],
    clock,
    config: { EMBED_SESSION_RETENTION_DAYS: '2', OPERATION_RETENTION_DAYS: '3' },
  });
  let org: TestOrganization;
  const h = helpers(suite, () => org);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });

  it('erases ended sessions after 2 days and operations of deleted scenes after 3', async () => {
    const scene = await h.readyScene();
    const session = await h.session(scene.sceneId);
    await suite.app.get(ScenesService).delete(org.organizationId, scene.sceneId);
    await suite.app.get(ScenePurge).purgeDeleted();
    clock.set(t0 + 2 * DAY + MINUTE);
    expect(await suite.app.get(EmbedSessionRetention).purgeEnded()).toEqual({ sessions: 1 });
    expect(await suite.app.get(OperationRetention).purgeOld()).toEqual({ operations: 0 });
    expect(await h.sessionIds()).not.toContain(session);
    clock.set(t0 + 3 * DAY + MINUTE);
    expect(await suite.app.get(OperationRetention).purgeOld()).toEqual({ operations: 1 });
    expect(await h.operationIds()).toEqual([]);
  });
});
