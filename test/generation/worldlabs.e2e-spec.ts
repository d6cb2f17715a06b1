import { HostResolver } from '@app/core';
import {
  GenerationError,
  GenerationRequest,
  inspectSpz,
  JobPoll,
  parseSceneView,
  PROVIDER_MESSAGES,
  promptWithEdits,
  ProviderJob,
  providerView,
  readGlb,
  SceneGenerator,
  WorldLabsSceneGenerator,
  WorldLabsSceneGeneratorOptions,
} from '@app/generation';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import sharp from 'sharp';
import { image } from '../factories/images';
import { FAKE_SPLAT_POINTS, FakeWorldLabs, WORLDLABS_MARKER, WorldLabsBehaviour } from '../support/fakes/worldlabs-fake';
import { pollUntil } from '../support/poll';

// No database and no apps: the adapter is called directly, as the worker calls it, against a
// real HTTP server speaking Marble's protocol (test/support/fakes/worldlabs-fake.ts).

const MAX_ARTIFACT_BYTES = 2 * 1024 * 1024;
const SCENE_ID = 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE';
const OPERATION_ID = 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHF';
/** Every message a failure may carry: ours, fixed (PROVIDER_MESSAGES and the artifact check's). */
const OUR_MESSAGES: string[] = [
  ...Object.values(PROVIDER_MESSAGES),
  'The generation provider returned a file that is not what it should be.',
];

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let fake: FakeWorldLabs;

beforeEach(async () => {
  fake = await FakeWorldLabs.start({ jobDurationMs: 300 });
});

afterEach(async () => {
  await fake.close();
});

function adapter(overrides: Partial<WorldLabsSceneGeneratorOptions> = {}): WorldLabsSceneGenerator {
  return new WorldLabsSceneGenerator({
    apiKey: fake.apiKey,
    baseUrl: fake.url,
    model: 'marble-1.1',
    splatResolution: '500k',
    timeoutMs: 5_000,
    maxArtifactBytes: MAX_ARTIFACT_BYTES,
    resolver: new HostResolver({ servers: null, timeoutMs: 2_000 }),
    ...overrides,
  });
}

const request = (overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: SCENE_ID,
  version: 1,
  prompt: 'a lighthouse on a cliff at dusk',
  source: null,
  edit: null,
  idempotencyKey: OPERATION_ID,
  ...overrides,
});

async function submitted(sut: SceneGenerator, req = request()): Promise<ProviderJob> {
  const outcome = await sut.submit(req);
  if (!('job' in outcome)) throw new Error('expected a provider job');
  // As the worker persists it: JSON, so nothing but data survives.
  return JSON.parse(JSON.stringify(outcome.job)) as ProviderJob;
}

function pollToEnd(sut: SceneGenerator, job: ProviderJob): Promise<JobPoll> {
  return pollUntil(
    () => sut.poll(job),
    (p) => p.status !== 'running',
    { timeoutMs: 10_000, what: 'the operation to end' },
  );
}

/** Submits and polls until Marble is done; the job as the worker would hold it afterwards. */
async function finishedJob(sut: SceneGenerator, req = request()): Promise<ProviderJob> {
  const job = await submitted(sut, req);
  fake.finish(job.id);
  const end = await pollToEnd(sut, job);
  expect(end.status).toBe('succeeded');
  return end.status === 'succeeded' && end.job ? end.job : job;
}

/** The failure, checked to be ours: a GenerationError with one of our messages, no provider text, no key. */
async function failure(promise: Promise<unknown>): Promise<GenerationError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GenerationError);
  const e = error as GenerationError;
  expect(OUR_MESSAGES).toContain(e.message);
  expect(JSON.stringify(e)).not.toContain(WORLDLABS_MARKER);
  // The whole error as a log line would show it: message, stack and the cause chain.
  const everything = `${inspect(e, { depth: 10, showHidden: true })} ${e.stack ?? ''}`;
  expect(everything).not.toContain(WORLDLABS_MARKER);
  expect(everything).not.toContain(fake.apiKey);
  return e;
}

function generateBody(): Record<string, any> {
  const calls = fake.requestsTo('/marble/v1/worlds:generate', 'POST');
  expect(calls).toHaveLength(1);
  return calls[0].body as Record<string, any>;
}

describe('WorldLabsSceneGenerator against a fake Marble', () => {
  describe('submit', () => {
    it('starts a text world with the model, a short display name and tags that find it', async () => {
      const sut = adapter();
      const prompt = 'A lighthouse on a windswept cliff at dusk, waves breaking on black rocks far below, gulls circling the lamp';
      const job = await submitted(sut, request({ prompt }));

      const call = fake.requestsTo('/marble/v1/worlds:generate')[0];
      expect(call.headers['wlt-api-key']).toBe(fake.apiKey);
      expect(call.headers.authorization).toBeUndefined();
      const body = generateBody();
      expect(body.model).toBe('marble-1.1');
      expect(body.world_prompt).toEqual({ type: 'text', text_prompt: prompt });
      expect(Array.from(body.display_name as string).length).toBeLessThanOrEqual(64);
      expect(prompt.startsWith((body.display_name as string).replace(/…$/, ''))).toBe(true);
      expect(body.tags).toEqual(expect.arrayContaining([SCENE_ID, OPERATION_ID]));
      expect(fake.submits).toBe(1);
      expect(fake.uploads).toBe(0);
      // The job is Marble's operation, and small enough to persist on ours.
      expect((await sut.poll(job)).status).toBe('running');
      expect(JSON.stringify(job).length).toBeLessThan(300);
    });

    it('uploads a source image as a media asset, to the signed URL with its headers and without the key', async () => {
      const sut = adapter();
      const bytes = await image('jpeg', 1280, 720);
      const source = { bytes, format: 'jpeg' as const, width: 1280, height: 720, sha256: sha256(bytes) };
      const job = await submitted(sut, request({ source }));

      const [prepare] = fake.requestsTo('/marble/v1/media-assets:prepare_upload', 'POST');
      expect(prepare.body).toEqual({ file_name: expect.stringMatching(/\.jpg$/), kind: 'image', extension: 'jpg' });
      const puts = fake.requests.filter((r) => r.method === 'PUT');
      expect(puts).toHaveLength(1);
      expect(puts[0].headers['wlt-api-key']).toBeUndefined();
      expect(puts[0].headers['content-type']).toBe('image/jpeg');
      expect(puts[0].headers['x-goog-content-length-range']).toBe('0,104857600');
      expect(puts[0].headers['x-fake-upload-token']).toEqual(expect.any(String));
      expect(fake.uploads).toBe(1);

      const mediaAssetId = job.state?.mediaAssetId as string;
      expect(fake.uploaded(mediaAssetId)).toEqual({ byteLength: bytes.length, sha256: sha256(bytes), contentType: 'image/jpeg' });
      expect(generateBody().world_prompt).toEqual({
        type: 'image',
        image_prompt: { source: 'media_asset', media_asset_id: mediaAssetId },
        text_prompt: 'a lighthouse on a cliff at dusk',
      });
      // Prepare, upload, generate: the world is asked for only once the bytes are there.
      expect(fake.requests.map((r) => `${r.method} ${r.path.split('?')[0].replace(/[0-9a-f-]{36}/, '{id}')}`)).toEqual([
        'POST /marble/v1/media-assets:prepare_upload',
        'PUT /uploads/{id}',
        'POST /marble/v1/worlds:generate',
      ]);
    });

    it('regenerates for an edit: every instruction so far in the prompt, the version in the name', async () => {
      const previous = providerView({
        prompt: 'a lighthouse on a cliff at dusk',
        bounds: null,
        edits: [{ version: 2, instruction: 'add fog', changes: ['regenerated'] }],
      });
      const edit = request({ version: 3, edit: { previous, instruction: 'make it night' } });
      await submitted(adapter(), edit);

      const body = generateBody();
      expect(body.world_prompt.text_prompt).toBe(promptWithEdits(edit));
      expect(body.world_prompt.text_prompt).toBe('a lighthouse on a cliff at dusk\nChange: add fog\nChange: make it night');
      expect(body.display_name).toBe('a lighthouse on a cliff at dusk · v3');
    });
  });

  describe('poll', () => {
    it('reports progress rising with time, then success with the world remembered in the job', async () => {
      fake.jobDurationMs = 2_500;
      const sut = adapter();
      const job = await submitted(sut);
      const seen: JobPoll[] = [];
      await pollUntil(
        async () => {
          const p = await sut.poll(job);
          seen.push(p);
          return p;
        },
        (p) => p.status !== 'running',
        { timeoutMs: 10_000, intervalMs: 100, what: 'the world' },
      );

      const progress = seen.flatMap((p) => (p.status === 'running' ? [p.progress] : []));
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.every((v) => v !== null && v >= 0 && v < 1)).toBe(true);
      expect(progress).toEqual([...progress].sort((a, b) => a! - b!));
      expect(new Set(progress).size).toBeGreaterThanOrEqual(3);
      const last = seen[seen.length - 1];
      // The cost Marble reports (`cost.total_credits`), for the organization's usage.
      expect(last).toEqual({
        status: 'succeeded',
        job: { id: job.id, state: expect.objectContaining({ worldId: expect.any(String) }) },
        costUnits: 1500,
      });
      // The world id, seen while running, is handed back for the worker to keep.
      const first = seen[0];
      expect(first.status === 'running' && first.job?.state?.worldId).toBe((last as { job: ProviderJob }).job.state?.worldId);
    });

    it('needs nothing from an earlier call: fresh adapters poll and fetch a job another one submitted', async () => {
      const job = await submitted(adapter());
      fake.finish(job.id);
      const end = await pollToEnd(adapter(), job);
      expect(end.status).toBe('succeeded');

      // With the world id the poll handed back, and with the job as submit left it.
      for (const persisted of [(end as { job: ProviderJob }).job, job]) {
        const scene = await adapter().fetch(persisted, request());
        expect(scene.artifacts.map((a) => a.kind)).toEqual(['splat', 'collider', 'panorama', 'thumbnail']);
      }
    });
  });

  describe('fetch', () => {
    it('stores the splat, collider, panorama and thumbnail, each checked by its bytes, and the world transform', async () => {
      const sut = adapter();
      const job = await finishedJob(sut);
      const scene = await sut.fetch(job, request());

      expect(scene.artifacts.map((a) => [a.kind, a.contentType])).toEqual([
        ['splat', 'application/vnd.niantic.spz'],
        ['collider', 'model/gltf-binary'],
        ['panorama', 'image/png'],
        ['thumbnail', 'image/jpeg'],
      ]);
      const [splat, collider, panorama, thumbnail] = scene.artifacts;
      expect(inspectSpz(splat.bytes, 64 * 1024 * 1024)).toEqual({ version: 3, points: FAKE_SPLAT_POINTS['500k'], shDegree: 0 });
      const glb = await readGlb(collider.bytes);
      expect(glb.getRoot().listMeshes()).toHaveLength(1);
      expect(await sharp(panorama.bytes).metadata()).toMatchObject({ format: 'png', width: 1024, height: 512 });
      expect(await sharp(thumbnail.bytes).metadata()).toMatchObject({ format: 'jpeg' });

      // World Labs' metadata as the fake serves it, and Marble's raw frame (OpenCV), for the studio
      // to place the world upright in metres.
      expect(scene.spec.world).toEqual({ metricScale: 1.25, groundOffset: 0.4, frame: 'opencv' });
      expect(scene.spec.prompt).toBe('a lighthouse on a cliff at dusk');
      expect(scene.spec.edits).toEqual([]);
      expect(scene.spec.cameras.map((c) => c.id)).toEqual(['ahead', 'left', 'right', 'behind']);
      expect(parseSceneView(JSON.parse(JSON.stringify(scene.spec)))).toEqual(scene.spec);
      // The files are fetched from Marble's URLs without our key.
      const downloads = fake.requests.filter((r) => r.path.startsWith('/files/'));
      expect(downloads).toHaveLength(4);
      expect(downloads.every((r) => r.headers['wlt-api-key'] === undefined)).toBe(true);
    });

    it('takes the configured splat resolution, or the nearest one the world has', async () => {
      const low = adapter({ splatResolution: '100k' });
      const lowScene = await low.fetch(await finishedJob(low), request());
      expect(inspectSpz(lowScene.artifacts[0].bytes, 64 * 1024 * 1024).points).toBe(FAKE_SPLAT_POINTS['100k']);

      fake.splatResolutions = ['100k', 'full_res'];
      const sut = adapter({ splatResolution: '500k' });
      const scene = await sut.fetch(await finishedJob(sut), request());
      expect(inspectSpz(scene.artifacts[0].bytes, 64 * 1024 * 1024).points).toBe(FAKE_SPLAT_POINTS.full_res);
    });

    it('carries an edit’s history into the view; without Marble’s metadata the world is only turned upright', async () => {
      fake.semantics = null;
      const sut = adapter();
      const previous = providerView({ prompt: 'a lighthouse', bounds: null, edits: [] });
      const edit = request({ prompt: 'a lighthouse', version: 2, edit: { previous, instruction: 'make it night' } });
      const scene = await sut.fetch(await finishedJob(sut, edit), edit);

      expect(scene.spec.edits).toEqual([{ version: 2, instruction: 'make it night', changes: ['regenerated'] }]);
      expect(scene.spec.world).toEqual({ metricScale: 1, groundOffset: 0, frame: 'opencv' });
    });
  });

  describe('cancel', () => {
    it('answers false without a call: Marble cannot cancel, and worlds are not deleted', async () => {
      const sut = adapter();
      const job = await submitted(sut);
      const before = fake.requests.length;
      await expect(sut.cancel(job)).resolves.toBe(false);
      expect(fake.requests).toHaveLength(before);
    });
  });

  describe('failures, in our words only', () => {
    it.each<[WorldLabsBehaviour, string, boolean]>([
      ['unauthorized', 'provider_rejected', false],
      ['no-credits', 'provider_quota_exceeded', false],
      ['unprocessable', 'provider_rejected', false],
      ['server-error', 'provider_unavailable', true],
      ['malformed-operation', 'generation_failed', false],
    ])('a submit answered with %s → %s (retryable: %s)', async (behaviour, code, retryable) => {
      fake.behaviour = behaviour;
      const error = await failure(adapter().submit(request()));
      expect(error).toMatchObject({ code, retryable });
      expect(fake.submits).toBe(0);
    });

    it('a wrong key → provider_rejected, the key nowhere in the error', async () => {
      const key = 'wlt_wrong_key_5f1c0e9a7d';
      const error = await failure(adapter({ apiKey: key }).submit(request()));
      expect(error).toMatchObject({ code: 'provider_rejected', retryable: false });
      expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(key);
      expect(fake.requests[0].headers['wlt-api-key']).toBe(key);
    });

    it('a source image Marble will not take → provider_rejected, before any world is started', async () => {
      const bytes = await image('png', 1280, 720);
      const source = { bytes, format: 'png' as const, width: 1280, height: 720, sha256: sha256(bytes) };
      for (const behaviour of ['unauthorized', 'upload-refused'] as const) {
        fake.behaviour = behaviour;
        const error = await failure(adapter().submit(request({ source })));
        expect(error).toMatchObject({ code: 'provider_rejected', retryable: false });
      }
      // Refused at prepare_upload, then at the signed URL (which was reached: the PUT is recorded).
      expect(fake.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
      expect(fake.submits + fake.uploads).toBe(0);
    });

    it('429 → provider_unavailable with Retry-After as retryAfterMs', async () => {
      fake.behaviour = 'rate-limited';
      fake.retryAfterSeconds = 7;
      const error = await failure(adapter().submit(request()));
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true, retryAfterMs: 7_000 });

      fake.retryAfterSeconds = null;
      expect((await failure(adapter().submit(request()))).retryAfterMs).toBeUndefined();
    });

    it('no answer in time → provider_timeout', async () => {
      fake.behaviour = 'hang';
      const error = await failure(adapter({ timeoutMs: 300 }).submit(request()));
      expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
    });

    it('5xx on polls for a while → provider_unavailable each time, then the job goes on', async () => {
      const sut = adapter();
      const job = await submitted(sut);
      fake.behaviour = 'polls-unavailable';
      fake.pollFailures = 2;
      for (let i = 0; i < 2; i++) expect(await failure(sut.poll(job))).toMatchObject({ code: 'provider_unavailable', retryable: true });
      fake.finish(job.id);
      expect((await sut.poll(job)).status).toBe('succeeded');
    });

    it('a failed operation → failed, generation_failed with our message', async () => {
      fake.behaviour = 'job-fails';
      const sut = adapter();
      const job = await submitted(sut);
      const end = await pollToEnd(sut, job);
      if (end.status !== 'failed') throw new Error(`expected a failed job, got ${end.status}`);
      expect(await failure(Promise.reject(end.error))).toMatchObject({ code: 'generation_failed', message: PROVIDER_MESSAGES.job_failed });
    });

    it('an operation Marble does not know → provider_rejected', async () => {
      const error = await failure(adapter().poll({ id: 'f0e1d2c3-0000-4000-8000-000000000000', state: { worldId: null } }));
      expect(error).toMatchObject({ code: 'provider_rejected', retryable: false });
    });

    it('a job that never finishes stays running, its progress short of the end', async () => {
      fake.behaviour = 'never-finishes';
      fake.jobDurationMs = 200;
      const sut = adapter();
      const job = await submitted(sut);
      const stuck = await pollUntil(
        () => sut.poll(job),
        (p) => p.status === 'running' && p.progress === 0.99,
        { what: 'progress to stall' },
      );
      expect(stuck.status).toBe('running');
      fake.finish(job.id);
      expect((await sut.poll(job)).status).toBe('succeeded');
    });

    it.each<[WorldLabsBehaviour]>([['oversized-splat'], ['oversized-splat-chunked'], ['corrupt-splat'], ['no-splat']])(
      'a world with %s → generation_failed, nothing stored',
      async (behaviour) => {
        fake.behaviour = behaviour;
        fake.oversizeBytes = 2 * MAX_ARTIFACT_BYTES;
        const sut = adapter();
        const job = await finishedJob(sut);
        const error = await failure(sut.fetch(job, request()));
        expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
      },
    );
  });
});
