import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { runCli } from '../support/processes';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

const APP = 'https://app.acme.example';
const OTHER = 'https://other.acme.example';
const LOCAL = 'http://localhost:5173';

/**
 * docs/api.md, "Approved origins": `cli origin remove` ends the live sessions bound to the origin
 * (`embed_session.ended`, reason `revoked`, once each; open studios hear of it within 2 s), and
 * `:extend` refuses a session whose origin is no longer approved (`404 not_found`). The CLI runs
 * as its own process, as operators run it.
 */
describe('removing an approved origin', () => {
  const suite = setUpSuite({
    studio: {},
    worker: { config: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' } },
    org: false,
  });
  let receiver: WebhookReceiver;
  let org: TestOrganization;
  let secret: string;
  let sceneId: string;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    cliEnv = { DATABASE_URL: suite.env.databaseUrl, QUEUE_PREFIX: suite.env.queuePrefix, LOG_LEVEL: 'info' };
    // A test organization, so the receiver's http://localhost URL and LOCAL are allowed too.
    org = await createOrganization(suite.api.app, { test: true, origins: [APP, OTHER] });
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['embed_session.ended'] });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret;
    sceneId = await readyScene(suite.api, org);
  });
  afterAll(() => receiver?.close());

  async function session(origin: string, mode = 'perform') {
    const res = await createEmbedSession(suite.api, org, { sceneId, origin, mode });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId as string, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  const cli = async (args: string[]) => {
    const r = await runCli([...args, '--json'], cliEnv);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    return { ...r, body: JSON.parse(r.stdout) as Record<string, any> };
  };

  const studioSession = (bearer: Record<string, string>) => suite.studio.http().get('/studio-api/v1/session').set(bearer);
  const extend = (id: string) => suite.api.http().post(`/v1/embed-sessions/${id}:extend`).set(org.auth).send({ expiresInSeconds: 3600 });
  const endedEvents = () => receiver.verified(secret).filter((e) => e.type === 'embed_session.ended');

  it('cli origin remove ends the live sessions bound to it, at once and once each; the others keep working', async () => {
    const perform = await session(APP, 'perform');
    const edit = await session(APP, 'edit');
    const revokedBefore = await session(APP, 'edit');
    expect((await suite.api.http().delete(`/v1/embed-sessions/${revokedBefore.id}`).set(org.auth)).status).toBe(204);
    const other = await session(OTHER);
    const local = await session(LOCAL, 'edit');
    const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, perform.bearer);
    const otherStream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, other.bearer);
    try {
      await stream.next('scene.status');
      await otherStream.next('scene.status');

      const removed = await cli(['origin', 'remove', '--org', org.organizationId, '--origin', APP]);
      expect(removed.code).toBe(0);
      expect(removed.body).toEqual({ organizationId: org.organizationId, origin: APP, removed: true });
      expect((await cli(['origin', 'list', '--org', org.organizationId])).body.origins).toEqual([OTHER]);

      // The open studio hears of it within 2 s of the revocation, and its stream closes.
      const ended = await stream.next('session.ended', 3000);
      expect(ended.data).toEqual({ reason: 'revoked' });
      const [{ revoked_at }] = await suite.api.app
        .get(DataSource)
        .query<{ revoked_at: Date }[]>(`SELECT revoked_at FROM embed_sessions WHERE id = $1`, [perform.id]);
      expect(ended.receivedAt - revoked_at.getTime()).toBeLessThan(2000);
      await stream.done;
      expect(stream.closed).toBe(true);

      // Both sessions on the origin ended as revocations; the other origin's and localhost's did not.
      for (const s of [perform, edit]) {
        const res = await studioSession(s.bearer);
        expectProblem(res, 401, 'session_ended');
        expect(res.body.reason).toBe('revoked');
        expectProblem(await extend(s.id), 404, 'not_found');
      }
      expect((await studioSession(other.bearer)).status).toBe(200);
      expect((await studioSession(local.bearer)).status).toBe(200);
      expect(otherStream.events.map((e) => e.event)).not.toContain('session.ended');

      // Removing it again changes nothing and announces nothing.
      expect((await cli(['origin', 'remove', '--org', org.organizationId, '--origin', APP])).body.removed).toBe(false);
      // A later event of the same endpoint: once it is in, every earlier one is too.
      expect((await suite.api.http().delete(`/v1/embed-sessions/${other.id}`).set(org.auth)).status).toBe(204);
      await pollUntil(
        () => Promise.resolve(endedEvents()),
        (events) => events.some((e) => e.data.embedSessionId === other.id),
        { what: "the barrier session's end to be delivered", timeoutMs: 15_000 },
      );
      const byId = (id: string) => endedEvents().filter((e) => e.data.embedSessionId === id);
      expect(byId(perform.id).map((e) => e.data)).toEqual([{ embedSessionId: perform.id, sceneId, reason: 'revoked' }]);
      expect(byId(edit.id).map((e) => e.data)).toEqual([{ embedSessionId: edit.id, sceneId, reason: 'revoked' }]);
      // Revoked before: announced by its own revocation, not again by the removal.
      expect(byId(revokedBefore.id)).toHaveLength(1);
      expect(byId(local.id)).toEqual([]);

      // Approving the origin again brings no session back.
      expect((await cli(['origin', 'add', '--org', org.organizationId, '--origin', APP])).body.added).toBe(true);
      expectProblem(await extend(perform.id), 404, 'not_found');
      expectProblem(await studioSession(perform.bearer), 401, 'session_ended');
    } finally {
      stream.close();
      otherStream.close();
    }
  });

  it('a session created while its origin is being removed waits for the removal and is refused', async () => {
    const origin = 'https://racing.acme.example';
    await cli(['origin', 'add', '--org', org.organizationId, '--origin', origin]);
    // A removal caught between its DELETE and its commit (OriginRemovalHooks run in between).
    const removal = suite.api.app.get(DataSource).createQueryRunner();
    await removal.connect();
    try {
      await removal.startTransaction();
      await removal.query(`DELETE FROM approved_origins WHERE organization_id = $1 AND origin = $2`, [org.organizationId, origin]);
      let answered = false;
      const creating = createEmbedSession(suite.api, org, { sceneId, origin, mode: 'perform' }).then((res) => {
        answered = true;
        return res;
      });
      // The creation holds on the approval's row: it has not answered while the removal is open.
      await pollUntil(
        async () =>
          (
            await suite.api.app.get(DataSource).query<{ n: number }[]>(
              // This file's database only: other files' creations may wait on their own removals.
              `SELECT count(*)::int AS n FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%approved_origins%'`,
            )
          )[0].n,
        (n) => n > 0,
        { what: 'the creation to wait on the removal', timeoutMs: 10_000 },
      );
      expect(answered).toBe(false);
      await removal.commitTransaction();
      expectProblem(await creating, 422, 'origin_not_allowed');
    } finally {
      if (removal.isTransactionActive) await removal.rollbackTransaction();
      await removal.release();
    }
  });

  it(':extend refuses a session whose origin is no longer approved, even one the removal did not reach', async () => {
    const origin = 'https://late.acme.example';
    await cli(['origin', 'add', '--org', org.organizationId, '--origin', origin]);
    const s = await session(origin);
    expect((await extend(s.id)).status).toBe(200);
    // A session created while its origin was being removed: the approval is gone, the session is not revoked.
    await suite.api.app
      .get(DataSource)
      .query(`DELETE FROM approved_origins WHERE organization_id = $1 AND origin = $2`, [org.organizationId, origin]);
    expectProblem(await extend(s.id), 404, 'not_found');
    // A test organization's localhost origins need no approval: they stay extendable.
    const local = await session(LOCAL);
    expect((await extend(local.id)).status).toBe(200);
  });
});
