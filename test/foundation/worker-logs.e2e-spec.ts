import { MAINTENANCE_QUEUE, QueueService } from '@app/core';
import { LogCapture } from '@app/core/testing';
import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { createOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { FakeGenerationProvider, PROVIDER_MARKER } from '../support/fake-generation-provider';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What a worker says about its work, at the default level (docs/operations.md, "Logs"): a line per
 * run of a job (name, id, organization, attempt, duration, outcome) and a line per failed webhook
 * delivery attempt (ids, status or error, the next attempt), and never a URL, body or secret.
 */
describe('worker log lines: one per job run, one per failed webhook delivery attempt', () => {
  const logs = new LogCapture();
  let fake: FakeGenerationProvider;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
    receiver = await WebhookReceiver.start();
  });

  const suite = setUpSuite(() => ({
    // The same capture for both: nestjs-pino writes every Nest logger of a process through the
    // first root logger it was given (here the api's).
    api: { logs },
    worker: {
      logs,
      config: {
        LOG_LEVEL: 'info',
        GENERATOR: 'http',
        GENERATION_PROVIDER_URL: fake.url,
        GENERATION_PROVIDER_API_KEY: 'pk_fake',
        GENERATION_ATTEMPTS: '2',
        GENERATION_BACKOFF_MS: '50',
        GENERATION_POLL_INTERVAL_MS: '50',
        GENERATION_POLL_MAX_MS: '200',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
        WEBHOOK_TIMEOUT_MS: '1500',
      },
    },
  }));

  afterAll(async () => {
    await receiver?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.submitBehaviour = 'accept';
    fake.jobBehaviour = 'succeed';
    fake.jobDurationMs = 0;
    fake.result = 'ok';
  });

  const records = () => logs.records() as Array<Record<string, unknown> & { msg: string; level: string }>;

  it('writes one info line when a generation completes, naming its organization; its polls and the sweeps say nothing at info', async () => {
    const created = await createScene(suite.api, suite.org, { prompt: 'A harbour at dawn with fishing boats' });
    const opId = created.body.operationId as string;
    expect((await awaitOperation(suite.api, suite.org, opId)).body.status).toBe('succeeded');
    const line = await pollUntil(async () => records().find((r) => r.jobId === opId && r.outcome === 'completed'), Boolean, {
      what: 'the completed line of the generation',
    });
    expect(line).toMatchObject({
      level: 'info',
      context: 'Worker',
      job: 'scene.generate',
      queue: 'scenes',
      organizationId: suite.org.organizationId,
      attempt: 1,
      durationMs: expect.any(Number),
      msg: expect.stringMatching(new RegExp(`^scene\\.generate ${opId} \\(${suite.org.organizationId}\\) completed in \\d+ ms$`)),
    });
    // The submit and each poll that found the provider still working were runs too (rescheduled),
    // written at debug, as are the scheduled sweeps' ordinary runs.
    const queue = suite.worker.get(QueueService).queue(MAINTENANCE_QUEUE);
    const sweep = await queue.add('image-assets.purge-expired', {});
    await pollUntil(
      async () => (await queue.getJob(sweep.id!))?.getState(),
      (s) => s === 'completed',
      { what: 'the sweep to run' },
    );
    expect(records().filter((r) => r.jobId === opId && r.outcome === 'rescheduled')).toEqual([]);
    expect(records().filter((r) => r.job === 'image-assets.purge-expired')).toEqual([]);
  });

  it('writes a warning for each failed attempt of a job, in our words, never the provider’s', async () => {
    fake.submitBehaviour = 'server-error';
    const created = await createScene(suite.api, suite.org, { prompt: 'A windmill on a hill under a storm' });
    const opId = created.body.operationId as string;
    expect((await awaitOperation(suite.api, suite.org, opId)).body.status).toBe('failed');
    const failed = await pollUntil(
      async () => records().filter((r) => r.jobId === opId && r.outcome === 'failed'),
      (lines) => lines.length === 2,
      { what: 'a failed line for each of the two attempts' },
    );
    expect(failed.map((r) => [r.level, r.attempt, r.organizationId])).toEqual([
      ['warn', 1, suite.org.organizationId],
      ['warn', 2, suite.org.organizationId],
    ]);
    expect(failed[0].msg).toMatch(new RegExp(`^scene\\.generate ${opId} \\(${suite.org.organizationId}\\) failed in \\d+ ms: `));
    expect(logs.text).not.toContain(PROVIDER_MARKER);
  });

  it('writes a line per failed delivery attempt with the endpoint, the status and the next attempt; never the URL, body or secret', async () => {
    fake.submitBehaviour = 'accept';
    receiver.answer = () => 500;
    const org = await createOrganization(suite.api.app, { test: true });
    const url = `${receiver.url}?token=tok-in-the-query-7Q2`;
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url, events: ['operation.succeeded'] });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.webhookEndpointId as string;
    const created = await createScene(suite.api, org, { prompt: 'A glacier lake under northern lights' });
    expect((await awaitOperation(suite.api, org, created.body.operationId as string)).body.status).toBe('succeeded');

    // Three attempts (the first and WEBHOOK_RETRY_SCHEDULE_MS's two retries), all answered 500.
    const lines = await pollUntil(
      async () => records().filter((r) => r.webhookEndpointId === endpointId),
      (l) => l.length === 3,
      { timeoutMs: 15_000, what: 'a line for each failed attempt' },
    );
    expect(lines.map((r) => [r.level, r.attempt, r.statusCode, r.error])).toEqual([
      ['info', 1, 500, 'http_status'],
      ['info', 2, 500, 'http_status'],
      ['warn', 3, 500, 'http_status'],
    ]);
    expect(lines[0].msg).toMatch(
      new RegExp(`^webhook delivery msg_\\w+ to ${endpointId} failed \\(attempt 1: HTTP 500\\); next attempt at \\S+Z$`),
    );
    expect(new Date(lines[0].nextAttemptAt as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(lines[2].msg).toMatch(/\(attempt 3: HTTP 500\); no attempt is left, the delivery has failed$/);
    expect(lines[2].nextAttemptAt).toBeNull();
    const delivered = receiver.received.at(-1)!;
    expect(logs.text).not.toContain('tok-in-the-query-7Q2');
    expect(logs.text).not.toContain(receiver.url);
    expect(logs.text).not.toContain(endpoint.body.secret);
    expect(logs.text).not.toContain(delivered.body);
    expect(logs.text).not.toContain(delivered.signature);
  });
});
