import { HostResolver } from '@app/core';
import {
  GeneratedScene,
  GenerationError,
  GenerationRequest,
  JobPoll,
  MeshySceneGenerator,
  MeshySceneGeneratorOptions,
  PROVIDER_MESSAGES,
  ProviderJob,
  promptWithEdits,
  providerView,
  readGlb,
  SceneView,
  SourceImageInput,
} from '@app/generation';
import { SharpImageMedia } from '@app/image-assets/media/sharp-image-media';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import sharp from 'sharp';
import { image } from '../factories/images';
import { MESHY_FAKE_MODEL_BOUNDS, MESHY_MARKER, MeshyFake, MeshyFakeFailure, MeshyTaskOutcome } from '../support/fakes/meshy-fake';

// No database and no apps: the adapter is driven the way the worker drives it (submit, poll until
// done, fetch; the job persisted as JSON between calls and every call made by a fresh instance, as
// after a restart) against a real HTTP server that speaks Meshy's protocol.

const media = new SharpImageMedia();
let fake: MeshyFake;
/** The fake's clock, moved by the tests: task states follow it, so no test waits on real time. */
let clock: number;

beforeEach(async () => {
  fake = await MeshyFake.start();
  clock = Date.now();
  fake.now = () => clock;
  fake.pendingMs = 1_000;
  fake.taskDurationMs = 10_000;
});

afterEach(async () => {
  await fake.close();
});

const sut = (overrides: Partial<MeshySceneGeneratorOptions> = {}) =>
  new MeshySceneGenerator(
    {
      apiKey: fake.apiKey,
      baseUrl: fake.url,
      aiModel: 'latest',
      refine: true,
      timeoutMs: 5_000,
      maxArtifactBytes: 1024 * 1024,
      resolver: new HostResolver({ servers: null, timeoutMs: 2_000 }),
      ...overrides,
    },
    media,
  );

const request = (prompt: string, overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  version: 1,
  prompt,
  source: null,
  edit: null,
  idempotencyKey: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  ...overrides,
});

const sourceOf = (bytes: Buffer, format: SourceImageInput['format']): SourceImageInput => ({
  bytes,
  format,
  width: 1280,
  height: 720,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

/** What the worker stores and reads back: JSON in a column. */
const persisted = (job: ProviderJob): ProviderJob => JSON.parse(JSON.stringify(job)) as ProviderJob;

async function submitted(generator: MeshySceneGenerator, req: GenerationRequest): Promise<ProviderJob> {
  const outcome = await generator.submit(req);
  if (!('job' in outcome)) throw new Error('Meshy must answer a submit with a job');
  return persisted(outcome.job);
}

/** Polls the way the worker does: a fresh adapter each time, the job replaced when a poll moves it on. */
async function pollAt(at: number, job: ProviderJob): Promise<{ poll: JobPoll; job: ProviderJob }> {
  clock = at;
  const poll = await sut().poll(persisted(job));
  return { poll, job: poll.status !== 'failed' && poll.status !== 'cancelled' && poll.job ? persisted(poll.job) : job };
}

async function failure(promise: Promise<unknown>): Promise<GenerationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GenerationError);
  return error as GenerationError;
}

/** Neither what Meshy said nor our key appears anywhere in an error: message, stack or causes. */
function expectClean(error: unknown): void {
  const text = inspect(error, { depth: 10 });
  expect(text).not.toContain(MESHY_MARKER);
  expect(text).not.toContain(fake.apiKey);
  expect(JSON.stringify(error)).not.toContain(MESHY_MARKER);
}

function expectFramesModel(spec: SceneView): void {
  const { min, max } = MESHY_FAKE_MODEL_BOUNDS;
  const center = [0, 1, 2].map((i) => (min[i] + max[i]) / 2);
  expect(spec.cameras.map((c) => c.id)).toEqual(['front', 'hero', 'high']);
  for (const camera of spec.cameras) {
    camera.target.forEach((v, i) => expect(v).toBeCloseTo(center[i], 2));
    const distance = Math.hypot(...camera.position.map((v, i) => v - center[i]));
    // Outside the model, and close enough for it to fill a good part of the frame.
    expect(distance).toBeGreaterThan(Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
    expect(distance).toBeLessThan(5);
  }
}

async function textureCount(scene: GeneratedScene): Promise<number> {
  const mesh = scene.artifacts.find((a) => a.kind === 'mesh')!;
  return (await readGlb(mesh.bytes)).getRoot().listTextures().length;
}

describe('text to 3D', () => {
  it('runs preview then refine, each step continued by a fresh adapter from the persisted job, progress rising across both', async () => {
    const req = request('a bronze statue of a fox');
    const start = clock;
    let job = await submitted(sut(), req);
    expect(job.state).toEqual({ phase: 'preview', refine: true });
    expect(fake.creates).toEqual({ preview: 1, refine: 0, image: 0 });
    const create = fake.requestsTo('POST', '/openapi/v2/text-to-3d')[0];
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.body).toMatchObject({ mode: 'preview', prompt: 'a bronze statue of a fox', ai_model: 'latest', topology: 'triangle' });

    const seen: number[] = [];
    const step = async (at: number) => {
      const result = await pollAt(at, job);
      job = result.job;
      if (result.poll.status === 'running' && result.poll.progress !== null) seen.push(result.poll.progress);
      return result.poll;
    };

    // Preview: queued, half-way (0.25 overall), done → the refine is submitted and replaces the job.
    expect(await step(start + 500)).toEqual({ status: 'running', progress: 0 });
    expect(await step(start + 6_000)).toEqual({ status: 'running', progress: 0.25 });
    const previewId = job.id;
    const moved = await step(start + 11_000);
    expect(moved).toMatchObject({ status: 'running', progress: 0.5 });
    expect(moved.status === 'running' && moved.job).toBeTruthy();
    expect(job.id).not.toBe(previewId);
    expect(job.state).toEqual({ phase: 'refine', previewId });
    expect(fake.creates).toEqual({ preview: 1, refine: 1, image: 0 });
    expect(fake.requestsTo('POST', '/openapi/v2/text-to-3d')[1].body).toMatchObject({
      mode: 'refine',
      preview_task_id: previewId,
      enable_pbr: true,
    });

    // Refine: its own queue and run, mapped onto 0.5..1.
    const refineStart = clock;
    expect(await step(refineStart + 500)).toEqual({ status: 'running', progress: 0.5 });
    expect(await step(refineStart + 1_000 + 4_000)).toEqual({ status: 'running', progress: 0.7 });
    expect(await step(refineStart + 11_000)).toEqual({ status: 'succeeded' });
    // Polling a finished refine again submits nothing more.
    expect(await step(refineStart + 12_000)).toEqual({ status: 'succeeded' });
    expect(fake.creates).toEqual({ preview: 1, refine: 1, image: 0 });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen).toEqual([0, 0.25, 0.5, 0.5, 0.7]);

    const scene = await sut().fetch(persisted(job), req);
    expect(scene.artifacts.map((a) => [a.kind, a.contentType])).toEqual([
      ['mesh', 'model/gltf-binary'],
      ['thumbnail', 'image/png'],
    ]);
    // The refine's textured model, not the preview's bare mesh.
    expect(await textureCount(scene)).toBe(1);
    expect(scene.spec.prompt).toBe('a bronze statue of a fox');
    expect(scene.spec.edits).toEqual([]);
    expectFramesModel(scene.spec);
    // Files come from signed URLs: the key stays with the API.
    const downloads = fake.requests.filter((r) => r.path.startsWith('/assets/'));
    expect(downloads).toHaveLength(2);
    for (const d of downloads) expect(d.headers.authorization).toBeUndefined();
  });

  it('without refine, the preview is the whole job (0..1) and becomes the scene', async () => {
    const req = request('a wooden chair');
    const start = clock;
    const job = await submitted(sut({ refine: false }), req);
    expect(job.state).toEqual({ phase: 'preview', refine: false });
    // The job keeps its plan even if the next worker is configured otherwise.
    expect((await pollAt(start + 6_000, job)).poll).toEqual({ status: 'running', progress: 0.5 });
    expect((await pollAt(start + 11_000, job)).poll).toEqual({ status: 'succeeded' });
    expect(fake.creates).toEqual({ preview: 1, refine: 0, image: 0 });

    const scene = await sut().fetch(job, req);
    expect(await textureCount(scene)).toBe(0);
    expectFramesModel(scene.spec);
  });

  it('cuts a prompt over 600 characters on a word boundary (Meshy refuses longer ones)', async () => {
    const prompt = Array.from({ length: 150 }, (_, i) => `detail${i}`).join(' ');
    await submitted(sut(), request(prompt));
    const sent = (fake.requestsTo('POST', '/openapi/v2/text-to-3d')[0].body as { prompt: string }).prompt;
    expect(Array.from(sent).length).toBeLessThanOrEqual(600);
    expect(prompt.startsWith(`${sent} `)).toBe(true);
    expect(fake.creates.preview).toBe(1);
  });

  it('regenerates an edit from the prompt and every instruction so far, and records the edit in the view', async () => {
    const previous: SceneView = {
      ...providerView({ prompt: 'a fox', bounds: null, edits: [] }),
      edits: [{ version: 2, instruction: 'make it sit', changes: ['regenerated'] }],
    };
    const req = request('a fox', { version: 3, edit: { previous, instruction: 'give it a hat' } });
    const job = await submitted(sut({ refine: false }), req);
    expect(fake.requestsTo('POST', '/openapi/v2/text-to-3d')[0].body).toMatchObject({ mode: 'preview', prompt: promptWithEdits(req) });
    fake.finishNow();
    expect((await pollAt(clock, job)).poll.status).toBe('succeeded');
    const scene = await sut().fetch(job, req);
    expect(scene.spec.edits).toEqual([
      { version: 2, instruction: 'make it sit', changes: ['regenerated'] },
      { version: 3, instruction: 'give it a hat', changes: ['regenerated'] },
    ]);
  });

  it('refuses to fetch a preview whose refine has not run', async () => {
    const job = await submitted(sut(), request('a lamp'));
    fake.finishNow();
    const error = await failure(sut().fetch(job, request('a lamp')));
    expect(error).toMatchObject({ code: 'generation_failed' });
    expect(fake.requests.filter((r) => r.path.startsWith('/assets/'))).toEqual([]);
  });
});

describe('image to 3D', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
  ] as const)('sends a %s source as it is, in a data URI', async (format, mime) => {
    const bytes = await image(format, 1280, 720);
    const req = request('a photo of a teapot', { source: sourceOf(bytes, format) });
    const job = await submitted(sut(), req);
    expect(job.state).toEqual({ phase: 'image' });
    const body = fake.requestsTo('POST', '/openapi/v1/image-to-3d')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ should_texture: true, ai_model: 'latest' });
    expect(body).not.toHaveProperty('texture_prompt');
    expect(body.image_url).toBe(`data:${mime};base64,${bytes.toString('base64')}`);
    expect(fake.creates).toEqual({ preview: 0, refine: 0, image: 1 });
  });

  it('re-encodes a WebP source as JPEG, which Meshy reads', async () => {
    const bytes = await image('webp', 1280, 720);
    await submitted(sut(), request('a teapot', { source: sourceOf(bytes, 'webp') }));
    const url = (fake.requestsTo('POST', '/openapi/v1/image-to-3d')[0].body as { image_url: string }).image_url;
    expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const meta = await sharp(Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64')).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1280, height: 720 });
    // The fake checks the bytes against the declared type, so an accepted create proves they agree.
    expect(fake.creates.image).toBe(1);
  });

  it('polls the image-to-3d task (progress is the whole job) and fetches its textured model', async () => {
    const req = request('a teapot', { source: sourceOf(await image('png', 1280, 720), 'png') });
    const start = clock;
    const job = await submitted(sut({ refine: true }), req);
    expect((await pollAt(start + 1_000 + 3_000, job)).poll).toEqual({ status: 'running', progress: 0.3 });
    expect((await pollAt(start + 11_000, job)).poll).toEqual({ status: 'succeeded' });
    expect(fake.requestsTo('GET', `/openapi/v1/image-to-3d/${job.id}`)).toHaveLength(2);
    expect(fake.creates).toEqual({ preview: 0, refine: 0, image: 1 });
    const scene = await sut().fetch(job, { ...req, source: null });
    expect(await textureCount(scene)).toBe(1);
    expectFramesModel(scene.spec);
  });

  it('regenerates an edit from the same image, re-textured by the prompt and instructions', async () => {
    const previous = providerView({ prompt: 'a teapot', bounds: null, edits: [] });
    const req = request('a teapot', {
      version: 2,
      source: sourceOf(await image('png', 1280, 720), 'png'),
      edit: { previous, instruction: 'make it porcelain blue' },
    });
    const job = await submitted(sut(), req);
    expect(job.state).toEqual({ phase: 'image' });
    expect(fake.requestsTo('POST', '/openapi/v1/image-to-3d')[0].body).toMatchObject({
      texture_prompt: 'a teapot\nChange: make it porcelain blue',
      should_texture: true,
    });
    expect(fake.requestsTo('POST', '/openapi/v2/text-to-3d')).toEqual([]);
  });
});

describe('fetch', () => {
  async function finishedJob(refine = false): Promise<{ job: ProviderJob; req: GenerationRequest }> {
    const req = request('a vase');
    const job = await submitted(sut({ refine }), req);
    fake.finishNow();
    return { job, req };
  }

  it('takes a task without a thumbnail: the mesh alone', async () => {
    fake.thumbnail = 'missing';
    const { job, req } = await finishedJob();
    expect(fake.task(job.id)).toMatchObject({ status: 'SUCCEEDED', thumbnail_url: '' });
    const scene = await sut().fetch(job, req);
    expect(scene.artifacts.map((a) => a.kind)).toEqual(['mesh']);
  });

  it.each([
    ['a GLB announced over the cap', 'oversized'],
    ['a GLB streamed past the cap without a length', 'oversized-chunked'],
    ['a GLB that does not parse', 'corrupt'],
    ['a task without a GLB', 'missing'],
  ] as const)('refuses %s: generation_failed, not retryable', async (_what, variant) => {
    fake.glb = variant;
    fake.oversizeBytes = 4 * 1024 * 1024;
    const { job, req } = await finishedJob();
    const error = await failure(sut({ maxArtifactBytes: 512 * 1024 }).fetch(job, req));
    expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
    expectClean(error);
  });

  it('refuses a thumbnail that is not an image', async () => {
    fake.thumbnail = 'not-image';
    const { job, req } = await finishedJob();
    const error = await failure(sut().fetch(job, req));
    expect(error).toMatchObject({ code: 'generation_failed', retryable: false });
    expectClean(error);
  });
});

describe('failures', () => {
  it('sends a wrong key to Meshy and gets provider_rejected, with neither key nor Meshy text in the error', async () => {
    const wrong = 'msy_wrong_key_0123456789abcdef';
    const error = await failure(sut({ apiKey: wrong }).submit(request('a fox')));
    expect(error).toMatchObject({ code: 'provider_rejected', retryable: false, message: PROVIDER_MESSAGES.provider_rejected });
    expect(inspect(error, { depth: 10 })).not.toContain(wrong);
    expectClean(error);
    expect(fake.creates.preview).toBe(0);
  });

  it.each<[string, string, boolean, MeshyFakeFailure, number | undefined]>([
    ['402 (no credits left)', 'provider_quota_exceeded', false, { status: 402 }, undefined],
    ['422', 'provider_rejected', false, { status: 422 }, undefined],
    ['400', 'provider_rejected', false, { status: 400 }, undefined],
    ['403', 'provider_rejected', false, { status: 403 }, undefined],
    ['429 with Retry-After', 'provider_unavailable', true, { status: 429, retryAfter: '7' }, 7_000],
    ['429 without Retry-After', 'provider_unavailable', true, { status: 429 }, undefined],
    ['500', 'provider_unavailable', true, { status: 500 }, undefined],
    ['503', 'provider_unavailable', true, { status: 503 }, undefined],
  ])('maps a create answered %s to %s (retryable: %s)', async (_what, code, retryable, answer, retryAfterMs) => {
    fake.createFailure = answer;
    const error = await failure(sut().submit(request('a fox')));
    expect(error).toMatchObject({ code, retryable, retryAfterMs });
    expect(error.message).toBe(PROVIDER_MESSAGES[code as keyof typeof PROVIDER_MESSAGES]);
    expectClean(error);
  });

  it('maps a 402 on the refine submit to provider_quota_exceeded', async () => {
    const job = await submitted(sut(), request('a fox'));
    fake.finishNow();
    fake.createFailure = { status: 402 };
    const error = await failure(sut().poll(job));
    expect(error).toMatchObject({ code: 'provider_quota_exceeded', retryable: false });
    expect(fake.creates.refine).toBe(0);
    expectClean(error);
  });

  it('reports polls answered 5xx as provider_unavailable until Meshy recovers', async () => {
    const job = await submitted(sut(), request('a fox'));
    fake.pollFailure = { status: 503, times: 2 };
    for (let i = 0; i < 2; i++) {
      const error = await failure(sut().poll(job));
      expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expectClean(error);
    }
    expect(await sut().poll(job)).toMatchObject({ status: 'running' });
  });

  it('passes a poll 429 Retry-After on to the worker', async () => {
    const job = await submitted(sut(), request('a fox'));
    fake.pollFailure = { status: 429, retryAfter: '12', times: 1 };
    const error = await failure(sut().poll(job));
    expect(error).toMatchObject({ code: 'provider_unavailable', retryable: true, retryAfterMs: 12_000 });
  });

  it.each<[MeshyTaskOutcome, string]>([
    ['fail', 'FAILED'],
    ['cancel', 'CANCELED'],
    ['expire', 'EXPIRED'],
  ])('reports a task that ends %s as a failed job in our words', async (outcome, status) => {
    fake.outcome = outcome;
    const job = await submitted(sut(), request('a fox'));
    fake.finishNow();
    expect(fake.task(job.id)).toMatchObject({ status });
    const poll = await sut().poll(job);
    expect(poll.status).toBe('failed');
    if (poll.status !== 'failed') return;
    expect(poll.error).toMatchObject({ code: 'generation_failed', message: PROVIDER_MESSAGES.job_failed, retryable: true });
    expectClean(poll.error);
  });

  it('reports a refine that fails after its preview succeeded', async () => {
    fake.outcomes = { refine: 'fail' };
    let job = await submitted(sut(), request('a fox'));
    fake.finishNow();
    ({ job } = await pollAt(clock, job));
    expect(job.state).toMatchObject({ phase: 'refine' });
    fake.finishNow();
    const { poll } = await pollAt(clock, job);
    expect(poll).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
  });

  it('keeps a task that never finishes running, below 100%, for the worker deadline to end', async () => {
    fake.outcome = 'never';
    const job = await submitted(sut({ refine: false }), request('a fox'));
    const { poll } = await pollAt(clock + 3_600_000, job);
    expect(poll).toEqual({ status: 'running', progress: 0.99 });
  });

  it('reports answers that are not JSON as generation_failed', async () => {
    fake.malformed = 'create';
    const submitError = await failure(sut().submit(request('a fox')));
    expect(submitError).toMatchObject({ code: 'generation_failed', retryable: false });
    expectClean(submitError);
    fake.malformed = null;
    const job = await submitted(sut(), request('a fox'));
    fake.malformed = 'poll';
    const pollError = await failure(sut().poll(job));
    expect(pollError).toMatchObject({ code: 'generation_failed', retryable: false });
    expectClean(pollError);
  });

  it('times out a Meshy that never answers: provider_timeout, retryable', async () => {
    fake.hang = 'create';
    const error = await failure(sut({ timeoutMs: 300 }).submit(request('a fox')));
    expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
    expectClean(error);
    fake.hang = false;
    const job = await submitted(sut(), request('a fox'));
    fake.hang = 'poll';
    await expect(sut({ timeoutMs: 300 }).poll(job)).rejects.toMatchObject({ code: 'provider_timeout', retryable: true });
  });

  it('reports a task Meshy no longer knows (deleted or expired) as provider_rejected', async () => {
    const error = await failure(sut().poll({ id: 'gone-task', state: { phase: 'preview', refine: true } }));
    expect(error).toMatchObject({ code: 'provider_rejected', retryable: false });
    expectClean(error);
  });
});

describe('cancel', () => {
  it('deletes a running text task; a second cancel finds nothing (false) and a poll is then rejected', async () => {
    const job = await submitted(sut(), request('a fox'));
    expect(await sut().cancel(job)).toBe(true);
    expect(fake.requestsTo('DELETE', `/openapi/v2/text-to-3d/${job.id}`)).toHaveLength(1);
    expect(fake.deleted).toEqual([job.id]);
    expect(fake.task(job.id)).toBeNull();
    expect(await sut().cancel(job)).toBe(false);
    await expect(sut().poll(job)).rejects.toMatchObject({ code: 'provider_rejected' });
  });

  it('deletes the refine task once the job moved on to it', async () => {
    let job = await submitted(sut(), request('a fox'));
    fake.finishNow();
    ({ job } = await pollAt(clock, job));
    expect(await sut().cancel(job)).toBe(true);
    expect(fake.deleted).toEqual([job.id]);
    expect(fake.taskIds('refine')).toEqual([]);
  });

  it('deletes an image task at its own endpoint', async () => {
    const job = await submitted(sut(), request('a teapot', { source: sourceOf(await image('png', 1280, 720), 'png') }));
    expect(await sut().cancel(job)).toBe(true);
    expect(fake.requestsTo('DELETE', `/openapi/v1/image-to-3d/${job.id}`)).toHaveLength(1);
  });
});

describe('the fake at benchmark scale', () => {
  it('carries 1,000 concurrent tasks on timestamps alone: all run, then all succeed together', async () => {
    fake.record = false;
    // A thousand calls at once queue for connections: on a busy machine (parallel test files) the
    // last ones wait longer than the 5 s a single call gets. What is checked is the fake's load.
    const generator = sut({ refine: false, timeoutMs: 60_000 });
    const jobs = await Promise.all(Array.from({ length: 1_000 }, (_, i) => submitted(generator, request(`a chair number ${i}`))));
    expect(fake.creates.preview).toBe(1_000);
    expect(fake.requests).toEqual([]);
    clock += 5_000;
    const running = await Promise.all(jobs.map((job) => generator.poll(job)));
    expect(running.every((p) => p.status === 'running' && p.progress === 0.4)).toBe(true);
    clock += 10_000;
    const done = await Promise.all(jobs.map((job) => generator.poll(job)));
    expect(done.every((p) => p.status === 'succeeded')).toBe(true);
  });
});
