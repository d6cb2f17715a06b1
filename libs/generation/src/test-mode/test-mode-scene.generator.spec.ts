import { ManualClock } from '@app/core';
import { GenerationError, GenerationRequest, ProviderJob, SceneGenerator, SubmitOutcome } from '../scene-generator';
import {
  isTestModeJob,
  isTestModeRequest,
  parseTestDirective,
  TEST_MODE_FAILURES,
  TestModeSceneGenerator,
} from './test-mode-scene.generator';

/** Stands for the configured provider: records what reached it. */
class RecordingGenerator extends SceneGenerator {
  readonly name = 'recording';
  readonly submitted: string[] = [];
  override submit(request: GenerationRequest): Promise<SubmitOutcome> {
    this.submitted.push(request.prompt);
    return Promise.resolve({ job: { id: 'provider-job' } });
  }
}

/** Stands for the procedural generator: a scene at once. */
class InstantGenerator extends SceneGenerator {
  readonly name = 'instant';
  override submit(): Promise<SubmitOutcome> {
    return Promise.resolve({ scene: { spec: {} as never, artifacts: [] } });
  }
}

const request = (prompt: string, overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  sceneId: 'scn_x',
  version: 1,
  prompt,
  source: null,
  edit: null,
  idempotencyKey: 'op_x',
  testMode: true,
  acceptedAt: new Date(1_000_000),
  ...overrides,
});

describe(TestModeSceneGenerator.name, () => {
  let clock: ManualClock;
  let provider: RecordingGenerator;
  let sut: TestModeSceneGenerator;

  beforeEach(() => {
    clock = new ManualClock(1_000_000);
    provider = new RecordingGenerator();
    sut = new TestModeSceneGenerator(provider, new InstantGenerator(), clock);
  });

  it("keeps the configured generator's name, so its jobs resume", () => {
    expect(sut.name).toBe('recording');
  });

  it("passes a live organization's directive to the provider as an ordinary prompt", async () => {
    await expect(sut.submit(request('test:succeed a harbour', { testMode: false }))).resolves.toEqual({ job: { id: 'provider-job' } });
    expect(provider.submitted).toEqual(['test:succeed a harbour']);
  });

  it("passes a test organization's ordinary prompt to the provider", async () => {
    await sut.submit(request('a harbour at dusk, test:succeed'));
    expect(provider.submitted).toEqual(['a harbour at dusk, test:succeed']);
  });

  it('succeeds at once without the provider', async () => {
    const outcome = await sut.submit(request('test:succeed a harbour'));
    expect('scene' in outcome).toBe(true);
    expect(provider.submitted).toEqual([]);
  });

  it("reads an edit's directive from its instruction", async () => {
    const edit = request('a harbour', { edit: { previous: {} as never, instruction: 'test:fail:provider_rejected' } });
    const outcome = await sut.submit(edit);
    if (!('job' in outcome)) throw new Error('expected a job');
    const poll = await sut.poll(outcome.job);
    expect(poll).toMatchObject({ status: 'failed', error: { code: 'provider_rejected', retryable: false } });
    expect(provider.submitted).toEqual([]);
  });

  it.each(Object.keys(TEST_MODE_FAILURES))('fails with %s at its first poll', async (code) => {
    const outcome = await sut.submit(request(`test:fail:${code} x`));
    if (!('job' in outcome)) throw new Error('expected a job');
    const poll = await sut.poll(outcome.job);
    if (poll.status !== 'failed') throw new Error(`expected a failure, got ${poll.status}`);
    expect(poll.error).toBeInstanceOf(GenerationError);
    expect(poll.error.code).toBe(code);
    expect(poll.error.simulated).toBe(true);
  });

  it('reports a cancel by the provider', async () => {
    const outcome = await sut.submit(request('test:cancel'));
    if (!('job' in outcome)) throw new Error('expected a job');
    await expect(sut.poll(outcome.job)).resolves.toEqual({ status: 'cancelled' });
    await expect(sut.cancel(outcome.job)).resolves.toBe(true);
  });

  it('runs for the time asked, its progress growing, then hands over the scene', async () => {
    const outcome = await sut.submit(request('test:duration:10 x'));
    if (!('job' in outcome)) throw new Error('expected a job');
    const job: ProviderJob = JSON.parse(JSON.stringify(outcome.job)) as ProviderJob; // as persisted
    await expect(sut.poll(job)).resolves.toEqual({ status: 'running', progress: 0 });
    clock.advance(4_000);
    await expect(sut.poll(job)).resolves.toEqual({ status: 'running', progress: 0.4 });
    clock.advance(6_000);
    await expect(sut.poll(job)).resolves.toEqual({ status: 'succeeded' });
    await expect(sut.fetch(job, request('test:duration:10 x'))).resolves.toHaveProperty('artifacts');
    expect(provider.submitted).toEqual([]);
  });

  it('asks for a pause, counted from acceptance, until the throttle has passed', async () => {
    clock.advance(2_000);
    const first = sut.submit(request('test:throttle:5 x'));
    await expect(first).rejects.toMatchObject({ code: 'provider_unavailable', retryable: true, retryAfterMs: 3_000, simulated: true });
    clock.advance(3_000);
    await expect(sut.submit(request('test:throttle:5 x'))).resolves.toHaveProperty('scene');
  });

  it('rejects a directive it does not know instead of sending it to the provider', async () => {
    await expect(sut.submit(request('test:sucess x'))).rejects.toMatchObject({ code: 'provider_rejected' });
    expect(provider.submitted).toEqual([]);
  });

  it('tells which requests and jobs are its own', async () => {
    expect(isTestModeRequest(request('test:cancel x'))).toBe(true);
    expect(isTestModeRequest(request('test:cancel x', { testMode: false }))).toBe(false);
    expect(isTestModeRequest(request('a harbour'))).toBe(false);
    const outcome = await sut.submit(request('test:cancel x'));
    expect('job' in outcome && isTestModeJob(outcome.job)).toBe(true);
    expect(isTestModeJob({ id: 'provider-job' })).toBe(false);
  });

  it('routes jobs it did not start to the provider', async () => {
    await expect(sut.poll({ id: 'provider-job' })).rejects.toThrow('recording does not run jobs to poll');
  });
});

describe(parseTestDirective.name, () => {
  it('reads the first word only, within bounds', () => {
    expect(parseTestDirective('  test:duration:600 x')).toEqual({ kind: 'duration', ms: 600_000 });
    expect(parseTestDirective('test:duration:601')).toEqual({ kind: 'rejected' });
    expect(parseTestDirective('test:duration:0')).toEqual({ kind: 'rejected' });
    expect(parseTestDirective('test:fail:cancelled')).toEqual({ kind: 'rejected' });
    expect(parseTestDirective('test:fail:__proto__')).toEqual({ kind: 'rejected' });
    expect(parseTestDirective('test:succeed')).toEqual({ kind: 'succeed' });
    expect(parseTestDirective('Test:succeed')).toBeNull();
    expect(parseTestDirective('a test:succeed')).toBeNull();
  });
});
