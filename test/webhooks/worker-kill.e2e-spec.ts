import { createEmbedSession } from '../factories/embed.factory';
import { createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The outbox's promise, with real worker processes: a worker killed with SIGKILL in the middle of
 * a delivery loses nothing. The delivery it had claimed comes due again when its lease runs out,
 * and the next worker sends it with the same `webhook-id`, verifiable as before.
 */
describe('webhooks survive a worker killed mid-delivery', () => {
  // The api runs in this process, without a worker; the workers are real processes.
  const suite = setUpSuite({});
  let receiver: WebhookReceiver;
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop('SIGKILL');
    await receiver.close();
  });

  async function worker(): Promise<ServiceProcess> {
    const w = await startWorkerProcess(suite.env, {
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200',
    });
    workers.push(w);
    return w;
  }

  it('redelivers, with the same webhook-id, what a SIGKILLed worker was sending', async () => {
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(suite.org.auth)
      .send({ url: receiver.url, events: ['operation.succeeded', 'embed_session.ended'] });
    const secret = endpoint.body.secret as string;
    // The receiver holds the first request open: the worker is mid-delivery when it dies.
    receiver.answer = (_, n) => (n === 1 ? 'hang' : 204);
    const first = await worker();
    const created = await createScene(suite.api, suite.org, { prompt: 'A harbour in fog' });
    await pollUntil(
      () => Promise.resolve(receiver.received.length),
      (n) => n >= 1,
      { what: 'the first delivery attempt to arrive', timeoutMs: 20_000 },
    );
    const held = receiver.received[0];
    await first.stop('SIGKILL');

    // While no worker runs, a session ends: its event waits in the outbox.
    const { body: op } = await suite.api.http().get(`/v1/operations/${created.body.operationId}`).set(suite.org.auth);
    expect(op.status).toBe('succeeded');
    const session = await createEmbedSession(suite.api, suite.org, { sceneId: op.sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    await suite.api.http().delete(`/v1/embed-sessions/${session.body.embedSessionId}`).set(suite.org.auth);

    await worker();
    const events = await pollUntil(
      () => Promise.resolve(receiver.verified(secret)),
      (v) => new Set(v.map((e) => e.id)).size >= 2 && v.filter((e) => e.id === held.id).length >= 2,
      { what: 'the held delivery again and the ended session', timeoutMs: 30_000 },
    );
    const again = events.filter((e) => e.id === held.id);
    expect(again.map((e) => e.type)).toEqual(['operation.succeeded', 'operation.succeeded']);
    expect(again[1].data).toEqual(op);
    expect(events.filter((e) => e.type === 'embed_session.ended').map((e) => e.data)).toEqual([
      { embedSessionId: session.body.embedSessionId, sceneId: op.sceneId, reason: 'revoked' },
    ]);
  });
});
