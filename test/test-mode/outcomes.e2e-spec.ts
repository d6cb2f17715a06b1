import { MetricsService } from '@app/core';
import { TEST_MODE_FAILURES } from '@app/generation';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization } from '../factories/organization.factory';
import { awaitOperation, createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';

describe("test mode: a test organization's directives pick a creation's or an edit's outcome", () => {
  const suite = setUpSuite({
    studio: {},
    worker: { config: { GENERATION_POLL_INTERVAL_MS: '100', GENERATION_POLL_MAX_MS: '200', GENERATION_BACKOFF_MS: '50' } },
    org: { test: true },
  });

  const operation = (id: string) => suite.api.http().get(`/v1/operations/${id}`).set(suite.org.auth);

  async function created(prompt: string, org = suite.org): Promise<string> {
    const res = await createScene(suite.api, org, { prompt });
    expect(res.status).toBe(202);
    return res.body.operationId as string;
  }

  it('test:succeed succeeds with version 1', async () => {
    const done = await awaitOperation(suite.api, suite.org, await created('test:succeed A harbour at dusk'));
    expect(done.body).toMatchObject({ status: 'succeeded', version: 1, sceneId: expect.stringMatching(/^scn_/) });
  });

  it.each(Object.entries(TEST_MODE_FAILURES))('test:fail:%s fails with that code, as a provider failure reads', async (code, failure) => {
    const done = await awaitOperation(suite.api, suite.org, await created(`test:fail:${code} A harbour`));
    expect(done.body).toMatchObject({ status: 'failed', error: { code, message: failure.message, retryable: failure.retryable } });
    expect(JSON.stringify(done.body)).not.toContain('test:');
  });

  it('test:cancel ends cancelled, and frees the externalRef at once', async () => {
    const res = await createScene(suite.api, suite.org, { prompt: 'test:cancel A harbour', externalRef: 'order-cancel-1' });
    const done = await awaitOperation(suite.api, suite.org, res.body.operationId);
    expect(done.body).toMatchObject({ status: 'failed', error: { code: 'cancelled', retryable: true } });
    expect((await suite.api.http().get('/v1/scenes?externalRef=order-cancel-1').set(suite.org.auth)).status).toBe(404);
  });

  it('test:duration:3 stays processing about 3 s, its progress growing through the generating stage, then succeeds', async () => {
    const started = Date.now();
    const opId = await created('test:duration:3 A harbour');
    const seen: { stage: string; progress: number }[] = [];
    const done = await pollUntil(
      async () => {
        const r = await operation(opId);
        if (r.body.status === 'processing') seen.push({ stage: r.body.stage, progress: r.body.progress });
        return r;
      },
      (r) => r.body.status !== 'processing',
      { timeoutMs: 20_000, intervalMs: 100, what: 'the timed operation to finish' },
    );
    expect(done.body.status).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    const generating = seen.filter((s) => s.stage === 'generating').map((s) => s.progress);
    // Several distinct points between the start (0.05) and the end of generating (0.85).
    expect(new Set(generating.filter((p) => p > 0.05 && p < 0.85)).size).toBeGreaterThanOrEqual(2);
    const progress = seen.map((s) => s.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("test:throttle:8 waits queued, as after a provider's 429, without holding back other organizations", async () => {
    const started = Date.now();
    const opId = await created('test:throttle:8 A harbour');
    await pollUntil(
      () => operation(opId),
      (r) => r.body.stage === 'queued' && Date.now() - started > 500,
      { what: 'the throttled operation to wait queued' },
    );
    // The fleet is not paused (a real provider's 429 pauses every start): another organization's
    // work starts and ends while this one still waits.
    const other = await createOrganization(suite.api.app, { test: false });
    const otherDone = await awaitOperation(suite.api, other, await created('A quiet lake', other));
    expect(otherDone.body.status).toBe('succeeded');
    expect(Date.now() - started).toBeLessThan(8000);
    expect((await operation(opId)).body).toMatchObject({ status: 'processing', stage: 'queued' });
    const done = await awaitOperation(suite.api, suite.org, opId, 30_000);
    expect(done.body.status).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(8000);
  });

  it("a live organization's directive is just a prompt", async () => {
    const live = await createOrganization(suite.api.app, { test: false });
    const done = await awaitOperation(suite.api, live, await created('test:fail:provider_rejected A harbour', live));
    expect(done.body).toMatchObject({ status: 'succeeded', version: 1 });
  });

  it('an unknown directive is refused rather than sent to the provider', async () => {
    const done = await awaitOperation(suite.api, suite.org, await created('test:sucess A harbour'));
    expect(done.body).toMatchObject({ status: 'failed', error: { code: 'provider_rejected', retryable: false } });
  });

  it("an edit turn's instruction picks its outcome the same way", async () => {
    const sceneId = await readyScene(suite.api, suite.org);
    const session = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(session.body.url).secret}` };
    const edit = (instruction: string) => suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction });

    const failing = await edit('test:fail:provider_timeout add fog');
    expect(failing.status).toBe(202);
    const failed = await awaitOperation(suite.api, suite.org, failing.body.operationId);
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'provider_timeout' } });

    const succeeding = await edit('test:succeed add fog');
    expect(succeeding.status).toBe(202);
    const succeeded = await awaitOperation(suite.api, suite.org, succeeding.body.operationId);
    expect(succeeded.body).toMatchObject({ status: 'succeeded', version: 2 });
  });

  // Last: by now every directive above has run on this worker.
  it("keeps made-up outcomes out of the provider's metrics, so no operator is paged for them", async () => {
    const { body } = await suite.worker.get(MetricsService).render();
    const counted = (pattern: RegExp) =>
      body
        .split('\n')
        .filter((line) => pattern.test(line))
        .reduce((n, line) => n + Number(line.split(' ').pop()), 0);
    expect(counted(/^generations_finished_total\{/)).toBeGreaterThan(0); // real generations are counted
    expect(counted(/^generations_finished_total\{.*outcome="failed"/)).toBe(0);
    expect(counted(/^generation_throttled_total\{.*source="provider"/)).toBe(0);
  });
});
