import { FakeDnsAnswer, FakeDnsServer } from '@app/core/testing';
import { INestApplicationContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene, uploadImage } from '../factories/scene.factory';
import { startApi, startWorker } from '../support/apps';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { freePort, ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

/** A public address, answered by the fake DNS server only while an endpoint is created: nothing ever connects to it. */
const PUBLIC = '93.184.215.14';
const WEBHOOK_TIMEOUT_MS = 1500;

type Attempt = { statusCode: number | null; error: string | null; durationMs: number };
type Delivery = { messageId: string; status: string; attempts: Attempt[]; nextAttemptAt: string | null };

describe('webhook targets resolve through their own DNS, within the delivery’s one deadline', () => {
  let dns: FakeDnsServer;
  /** How the fake DNS answers each name of the endpoints made so far (others: nxdomain). */
  const zone = new Map<string, () => FakeDnsAnswer>();
  beforeAll(async () => {
    dns = await FakeDnsServer.start();
  });
  afterAll(() => dns?.close());

  // The api gives DNS a second at endpoint creation.
  const suite = setUpSuite(() => ({ api: { config: { OUTBOUND_DNS_SERVERS: dns.server, OUTBOUND_DNS_TIMEOUT_MS: '1000' } }, org: false }));
  const workers: INestApplicationContext[] = [];
  afterAll(async () => {
    for (const w of workers) await w.close();
  });

  /**
   * Two worker contexts on the same database, whose DNS budget (20 s) is far longer than their
   * delivery deadline: the deadline must cut the resolution short, and a claim's lease (the
   * deadline and 5 s) must outlast every attempt, or the other worker would claim it again.
   */
  async function twoWorkers(): Promise<void> {
    for (let i = 0; i < 2; i++) {
      workers.push(
        await startWorker(suite.env, {
          config: {
            OUTBOUND_DNS_SERVERS: dns.server,
            OUTBOUND_DNS_TIMEOUT_MS: '20000',
            WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
            WEBHOOK_POLL_INTERVAL_MS: '50',
            // One attempt within the test: the next one would be ten minutes later.
            WEBHOOK_RETRY_SCHEDULE_MS: '600000',
          },
        }),
      );
    }
  }

  const createEndpoint = (org: TestOrganization, url: string, events = ['operation.succeeded']) =>
    suite.api.http().post('/v1/webhook-endpoints').set(org.auth).send({ url, events });

  const deliveriesOf = async (org: TestOrganization, endpointId: string): Promise<Delivery[]> =>
    (await suite.api.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth)).body.items;

  /** An endpoint on `host`, created while its name answers with a public address; from then on DNS answers as `then` says. */
  async function endpointOn(org: TestOrganization, host: string, then: () => FakeDnsAnswer): Promise<string> {
    zone.set(host, () => ({ addresses: [PUBLIC] }));
    dns.answer = (name) => zone.get(name)?.() ?? 'nxdomain';
    const res = await createEndpoint(org, `https://${host}/hooks`);
    expect(res.status).toBe(201);
    zone.set(host, then);
    return res.body.webhookEndpointId as string;
  }

  it('answers endpoint creation 503 unavailable with Retry-After, within its DNS timeout, when DNS never answers', async () => {
    const org = await createOrganization(suite.api.app, { test: false });
    dns.answer = () => 'silence';
    const started = performance.now();
    const res = await createEndpoint(org, 'https://silent.partner.example/hooks');
    const took = performance.now() - started;
    expectProblem(res, 503, 'unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // c-ares may give up on its own before the budget (its retries fit within it); never after it.
    expect(took).toBeLessThan(4000);
    expect(dns.queriesFor('silent.partner.example').length).toBeGreaterThan(0);
    // A name that does not exist is the URL's fault: 422.
    dns.answer = () => 'nxdomain';
    expectProblem(await createEndpoint(org, 'https://missing.partner.example/hooks'), 422, 'validation_failed');
    // And one that resolves to a private address, too.
    dns.answer = () => ({ addresses: ['10.0.0.7'] });
    const privately = await createEndpoint(org, 'https://private.partner.example/hooks');
    expectProblem(privately, 422, 'validation_failed');
    expect(privately.body.errors).toEqual([{ field: 'url', code: 'not_allowed', message: expect.stringContaining('public address') }]);
  });

  it('ends a delivery whose DNS never answers at WEBHOOK_TIMEOUT_MS, records it once as a timeout, and keeps serving uploads', async () => {
    const org = await createOrganization(suite.api.app, { test: false });
    const endpoints: string[] = [];
    for (let i = 0; i < 6; i++) endpoints.push(await endpointOn(org, `silent-${i}.partner.example`, () => 'silence'));
    await twoWorkers();
    const created = await createScene(suite.api, org, { prompt: 'A lighthouse whose hooks never resolve' });
    expect((await awaitOperation(suite.api, org, created.body.operationId)).body.status).toBe('succeeded');
    await pollUntil(
      () => Promise.resolve(endpoints.filter((_, i) => dns.queriesFor(`silent-${i}.partner.example`).length > 0).length),
      (n) => n === endpoints.length,
      { what: 'every delivery to be resolving its name' },
    );
    // Meanwhile, uploads (sharp, on the thread pool) are served as ever.
    for (let i = 0; i < 3; i++) expect(await uploadImage(suite.api, org, 1280, 720)).toMatch(/^img_/);

    const recorded = await pollUntil(
      () => Promise.all(endpoints.map((id) => deliveriesOf(org, id))),
      (all) => all.every((items) => items.length === 1 && items[0].attempts.length === 1),
      { what: 'one attempt of every delivery', timeoutMs: 3 * WEBHOOK_TIMEOUT_MS + 2000 },
    );
    for (const [delivery] of recorded) {
      expect(delivery.status).toBe('pending');
      expect(delivery.attempts).toEqual([
        { attemptedAt: expect.any(String), statusCode: null, error: 'timeout', durationMs: expect.any(Number) },
      ]);
      expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(WEBHOOK_TIMEOUT_MS - 100);
      expect(delivery.attempts[0].durationMs).toBeLessThan(WEBHOOK_TIMEOUT_MS + 1000);
      expect(Date.parse(delivery.nextAttemptAt!) - Date.now()).toBeGreaterThan(60_000);
    }
    // Claimed once: no attempt of any delivery is recorded twice, nor a second one begun by the other worker.
    const again = await Promise.all(endpoints.map((id) => deliveriesOf(org, id)));
    expect(again.map((items) => items.map((d) => d.attempts.length))).toEqual(endpoints.map(() => [1]));
  });

  it('refuses at delivery a name that resolved to a public address at creation and now resolves to a private one', async () => {
    const org = await createOrganization(suite.api.app, { test: false });
    const endpointId = await endpointOn(org, 'rebound.partner.example', () => ({ addresses: ['10.0.0.7'] }));
    if (workers.length === 0) await twoWorkers();
    const before = dns.queriesFor('rebound.partner.example').length;
    const created = await createScene(suite.api, org, { prompt: 'A harbour whose hooks moved inside' });
    await awaitOperation(suite.api, org, created.body.operationId);
    const [delivery] = await pollUntil(
      () => deliveriesOf(org, endpointId),
      (items) => items[0]?.attempts.length === 1,
      { what: 'the refused attempt' },
    );
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: 'target_not_allowed' });
    expect(dns.queriesFor('rebound.partner.example').length).toBeGreaterThan(before);
  });
});

describe('loopback webhook targets: test organizations only, off in production unless enabled, never our own ports', () => {
  const SECRETS_KEY = randomBytes(32).toString('base64');
  const PRODUCTION = { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: SECRETS_KEY };
  // Outside production, where test organizations may use localhost; the same sealing key as the production processes below.
  const suite = setUpSuite({ api: { config: { WEBHOOK_SECRETS_KEY: SECRETS_KEY } }, org: false });
  let receiver: WebhookReceiver;
  const processes: ServiceProcess[] = [];
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await receiver?.close();
  });

  const createEndpoint = (api: typeof suite.api, org: TestOrganization, url: string) =>
    api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url, events: ['operation.succeeded'] });

  it('refuses http://localhost:<port> in production unless WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const production = await startApi(suite.env, { config: PRODUCTION });
    const allowing = await startApi(suite.env, { config: { ...PRODUCTION, WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    try {
      const org = await createOrganization(production.app, { test: true });
      const refused = await createEndpoint(production, org, receiver.url);
      expectProblem(refused, 422, 'validation_failed');
      expect(refused.body.errors).toEqual([{ field: 'url', code: 'not_allowed', message: expect.stringContaining('localhost') }]);
      expect((await createEndpoint(allowing, org, receiver.url)).status).toBe(201);
      // Outside production a test organization may, as before.
      // Another path: the same URL with the same event would be a duplicate (409).
      expect((await createEndpoint(suite.api, org, `${receiver.url}/again`)).status).toBe(201);
    } finally {
      await production.close();
      await allowing.close();
    }
  });

  it.each(['API_PORT', 'STUDIO_PORT', 'WORKER_PORT', 'API_OPS_PORT', 'STUDIO_OPS_PORT'])(
    'refuses a target on the configured %s at creation',
    async (variable) => {
      const port = String(await freePort());
      const api = await startApi(suite.env, { config: { [variable]: port } });
      try {
        const org = await createOrganization(api.app, { test: true });
        const res = await createEndpoint(api, org, `http://localhost:${port}/hooks`);
        expectProblem(res, 422, 'validation_failed');
        expect(res.body.errors).toEqual([{ field: 'url', code: 'not_allowed', message: expect.stringContaining('port of this service') }]);
      } finally {
        await api.close();
      }
    },
  );

  const deliveriesOf = async (org: TestOrganization, endpointId: string): Promise<Delivery[]> =>
    (await suite.api.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth)).body.items;

  /** Creates a scene and waits for the first attempt of the endpoint's delivery of its success. */
  async function firstAttempt(org: TestOrganization, endpointId: string, prompt: string): Promise<Attempt> {
    const created = await createScene(suite.api, org, { prompt });
    expect((await awaitOperation(suite.api, org, created.body.operationId)).body.status).toBe('succeeded');
    const [delivery] = await pollUntil(
      () => deliveriesOf(org, endpointId),
      (items) => items[0]?.attempts.length === 1,
      { what: `the attempt of ${endpointId}`, timeoutMs: 20_000 },
    );
    return delivery.attempts[0];
  }

  async function workerProcess(env: Record<string, string>): Promise<ServiceProcess> {
    const worker = await startWorkerProcess(suite.env, { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE_MS: '600000', ...env });
    processes.push(worker);
    return worker;
  }

  it('never delivers to the worker’s own port (its health and metrics server)', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    // Created where the rule does not apply (the api's ports are others); delivered by a worker listening there.
    const ownPort = await freePort();
    const toItself = await createEndpoint(suite.api, org, `http://localhost:${ownPort}/hooks`);
    expect(toItself.status).toBe(201);
    const worker = await workerProcess({ NODE_ENV: 'test', WORKER_PORT: String(ownPort) });
    try {
      // Delivered, it would be answered 404 by the worker's own ops server (http_status).
      expect(await firstAttempt(org, toItself.body.webhookEndpointId, 'A lighthouse that calls itself')).toMatchObject({
        statusCode: null,
        error: 'target_not_allowed',
      });
    } finally {
      await worker.stop();
    }
  });

  it('never delivers to localhost from a production worker unless WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const org = await createOrganization(suite.api.app, { test: true });
    const endpoint = await createEndpoint(suite.api, org, receiver.url);
    expect(endpoint.status).toBe(201);
    const refusing = await workerProcess(PRODUCTION);
    try {
      expect(await firstAttempt(org, endpoint.body.webhookEndpointId, 'A harbour at night')).toMatchObject({
        statusCode: null,
        error: 'target_not_allowed',
      });
      expect(receiver.received).toEqual([]);
    } finally {
      await refusing.stop();
    }
    const other = await createEndpoint(suite.api, org, `${receiver.url}/other`);
    const allowing = await workerProcess({ ...PRODUCTION, WEBHOOK_ALLOW_LOOPBACK: 'true' });
    try {
      expect(await firstAttempt(org, other.body.webhookEndpointId, 'A harbour at dawn')).toMatchObject({ statusCode: 204, error: null });
    } finally {
      await allowing.stop();
    }
  });
});
