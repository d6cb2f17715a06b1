import { SceneOperationsService } from '@app/operations';
import { hashEmbedSecret } from '@app/embed-sessions/embed-secret';
import { DEFAULT_THEME } from '@app/embed-sessions/embed-session.entity';
import { EmbedSessionsRepository } from '@app/embed-sessions/embed-sessions.repository';
import { ScenesService } from '@app/scenes';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';

/** An active session of the organization's scene, as the service inserts one; returns its id. */
async function insertSession(
  sessions: EmbedSessionsRepository,
  scope: { organizationId: string; sceneId: string },
  createdAt: Date,
  expiresAt: Date,
): Promise<string> {
  const id = `es_${randomUUID()}`;
  await sessions.insert({
    id,
    ...scope,
    origin: 'https://partner.example',
    mode: 'perform',
    theme: { ...DEFAULT_THEME },
    secretHash: hashEmbedSecret(randomBytes(32).toString('base64url')),
    createdAt,
    expiresAt,
    revokedAt: null,
    revokedReason: null,
  });
  return id;
}

/**
 * An ended session stays ended. The expiry sweep reports a session's end (`end_reported_at`) and
 * announces it; an extension or test mode's "expire now" whose clock was read just before the
 * expiry, landing after the sweep, must not revive or end it again: a revived session could not be
 * revoked (every end requires its end unreported) and would never be announced.
 */
describe('a session whose end the sweep reported', () => {
  const suite = setUpServices();
  let org: TestOrganization;
  let sceneId: string;
  const sessions = () => new EmbedSessionsRepository(suite.app.get(DataSource));

  beforeAll(async () => {
    org = await createOrganization(suite.app);
    const ref = `ends-${randomUUID()}`;
    await suite.app
      .get(SceneOperationsService)
      .create(org.organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt: 'A quiet lake', externalRef: ref });
    sceneId = (await suite.app.get(ScenesService).findByExternalRef(org.organizationId, ref))!.sceneId;
  });

  /** A session expiring at `expiresAt`, its end then reported by the sweep one second later. */
  async function sweptSession(expiresAt: Date): Promise<string> {
    const id = await insertSession(
      sessions(),
      { organizationId: org.organizationId, sceneId },
      new Date(expiresAt.getTime() - 3_600_000),
      expiresAt,
    );
    const claimed = await sessions().transaction((tx) => sessions().claimExpiredUnreported(tx, new Date(expiresAt.getTime() + 1000), 1000));
    expect(claimed.map((s) => s.id)).toContain(id);
    return id;
  }

  it('is not extended by a request whose clock was read before the expiry', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const id = await sweptSession(expiresAt);
    const before = new Date(expiresAt.getTime() - 500);
    expect(await sessions().extend(org.organizationId, id, new Date(expiresAt.getTime() + 3_600_000), before)).toBeNull();
    expect((await sessions().findById(id))!.session.expiresAt).toEqual(expiresAt);
  });

  it("is not ended again by test mode's expire-now", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const id = await sweptSession(expiresAt);
    const before = new Date(expiresAt.getTime() - 500);
    expect(await sessions().transaction((tx) => sessions().expireNow(tx, org.organizationId, id, before))).toBeNull();
  });

  it('an active session is still extended (the guard is not a blanket refusal)', async () => {
    const now = new Date();
    const id = await insertSession(sessions(), { organizationId: org.organizationId, sceneId }, now, new Date(now.getTime() + 600_000));
    const later = new Date(now.getTime() + 3_600_000);
    expect(await sessions().extend(org.organizationId, id, later, now)).toEqual(later);
  });
});

/**
 * A session still active when its scene was deleted ended with the deletion: its follow-up (a job
 * a moment later) announces it as `scene_deleted`. The expiry sweep, should the session expire
 * before that job runs, must leave it alone rather than announce it as `expired`; a session that
 * had expired before the deletion stays the sweep's.
 */
describe('the expiry sweep and a deleted scene', () => {
  const suite = setUpServices();
  const sessions = () => new EmbedSessionsRepository(suite.app.get(DataSource));

  it('leaves a session that outlived its scene to the deletion, and sweeps one that expired before it', async () => {
    const org = await createOrganization(suite.app);
    const ref = `deleted-${randomUUID()}`;
    await suite.app
      .get(SceneOperationsService)
      .create(org.organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt: 'A quiet lake', externalRef: ref });
    const sceneId = (await suite.app.get(ScenesService).findByExternalRef(org.organizationId, ref))!.sceneId;
    const now = Date.now();
    const session = (expiresAt: number) =>
      insertSession(sessions(), { organizationId: org.organizationId, sceneId }, new Date(now - 3_600_000), new Date(expiresAt));
    const expiredBefore = await session(now - 60_000);
    const outlived = await session(now + 60_000);
    // The deletion commits; its follow-up job is enqueued but no worker runs here.
    await suite.app.get(ScenesService).delete(org.organizationId, sceneId);
    const [{ deleted_at: deletedAt }] = await suite.app
      .get(DataSource)
      .query<{ deleted_at: Date }[]>(`SELECT deleted_at FROM scenes WHERE id = $1`, [sceneId]);

    // The sweep, after both expired.
    const swept = await sessions().transaction((tx) => sessions().claimExpiredUnreported(tx, new Date(now + 120_000), 1000));
    expect(swept.map((s) => s.id)).toContain(expiredBefore);
    expect(swept.map((s) => s.id)).not.toContain(outlived);
    // The deletion's follow-up then finds it, from the deletion's time.
    const followUp = await sessions().transaction((tx) => sessions().revokeForScene(tx, sceneId, deletedAt));
    expect(followUp.map((s) => s.id)).toEqual([outlived]);
    expect((await sessions().findById(outlived))!.session).toMatchObject({ revokedReason: 'scene_deleted' });
  });
});
