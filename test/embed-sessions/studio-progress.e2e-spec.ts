import { ProceduralSceneGenerator } from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl } from '../factories/embed.factory';
import { createScene } from '../factories/scene.factory';
import { FakeGenerationProvider, PROVIDER_MARKER } from '../support/fake-generation-provider';
import { pollUntil } from '../support/poll';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

describe('the studio shows generation progress and a failed creation safely', () => {
  // The fake provider starts before the suite's apps (the worker needs its URL) and stops after them.
  let fake: FakeGenerationProvider;

  beforeAll(async () => {
    fake = await FakeGenerationProvider.start(new ProceduralSceneGenerator(new SharpImageMedia()));
  });

  const suite = setUpSuite(() => ({
    // One attempt, so a provider that never answers fails the operation after its timeout.
    api: { config: { GENERATION_ATTEMPTS: '1' } },
    studio: {},
    worker: {
      config: {
        GENERATOR: 'http',
        GENERATION_PROVIDER_URL: fake.url,
        GENERATION_PROVIDER_TIMEOUT_MS: '1500',
        // Polls close together: the test waits for the provider's progress to show.
        GENERATION_POLL_INTERVAL_MS: '50',
        GENERATION_POLL_MAX_MS: '100',
      },
    },
  }));

  afterAll(async () => {
    await fake?.close();
  });

  async function sessionForNewScene(prompt: string) {
    const requested = fake.nextRequest((r) => r.path === '/v2/generations');
    const created = await createScene(suite.api, suite.org, { prompt });
    const { sceneId } = await stored(suite.api.app.get(DataSource)).operation(created.body.operationId);
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    expect(res.status).toBe(201);
    return { requested, sceneId, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  it("reports the provider's progress and the stage while generating, then success", async () => {
    fake.submitBehaviour = 'accept';
    fake.jobBehaviour = 'gated';
    fake.gatedProgress = 0.5;
    fake.hold();
    const { requested, bearer } = await sessionForNewScene('progress please');
    await requested;
    // 0.05 once submitted, then the provider's half of the generating span (0.05 to 0.85).
    const during = await pollUntil(
      async () => (await suite.studio.http().get('/studio-api/v1/session').set(bearer)).body.scene,
      (scene) => scene.progress === 0.45,
      { what: "the provider's progress to show" },
    );
    expect(during).toEqual({
      status: 'generating',
      version: null,
      hasSourceImage: false,
      progress: 0.45,
      stage: 'generating',
      error: null,
    });
    const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, bearer);
    try {
      expect((await stream.next('scene.status')).data).toEqual({
        status: 'generating',
        version: null,
        progress: 0.45,
        stage: 'generating',
        error: null,
      });
      fake.release();
      await pollUntil(
        async () => stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data),
        (all) => all.some((d) => d.status === 'ready'),
        { what: 'the ready status to be pushed' },
      );
      expect(stream.events.filter((e) => e.event === 'scene.status').pop()!.data).toEqual({
        status: 'ready',
        version: 1,
        progress: null,
        stage: null,
        error: null,
      });
    } finally {
      stream.close();
    }
  });

  it("shows a failed creation with the operation's safe error, never the provider's words", async () => {
    fake.submitBehaviour = 'hang';
    const { requested, bearer } = await sessionForNewScene('this will time out');
    await requested;
    const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, bearer);
    try {
      const failed = await pollUntil(
        async () => stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data),
        (all) => all.some((d) => d.status === 'failed'),
        { what: 'the failed status to be pushed', timeoutMs: 15_000 },
      );
      const last = failed.find((d) => d.status === 'failed');
      expect(last).toEqual({
        status: 'failed',
        version: null,
        progress: null,
        stage: null,
        error: { code: 'provider_timeout', message: expect.any(String), retryable: true },
      });
      const session = await suite.studio.http().get('/studio-api/v1/session').set(bearer);
      expect(session.status).toBe(200);
      expect(session.body.scene).toMatchObject({ status: 'failed', error: { code: 'provider_timeout' } });
      expect(JSON.stringify(session.body) + JSON.stringify(stream.events)).not.toContain(PROVIDER_MARKER);
    } finally {
      stream.close();
    }
  });
});
