import { Clock } from '@app/core';
import { PROVIDER_MESSAGES } from '../providers/provider-http';
import {
  GeneratedScene,
  GenerationError,
  GenerationErrorCode,
  GenerationRequest,
  JobPoll,
  ProviderErasure,
  ProviderJob,
  ProviderJobOwner,
  SceneGenerator,
  SubmitOutcome,
} from '../scene-generator';

/** The failures a directive may ask for: every public generation error code, each as a real provider's answer reads. */
export const TEST_MODE_FAILURES: Record<GenerationErrorCode, { message: string; retryable: boolean }> = {
  generation_failed: { message: PROVIDER_MESSAGES.job_failed, retryable: true },
  provider_unavailable: { message: PROVIDER_MESSAGES.provider_unavailable, retryable: true },
  provider_timeout: { message: PROVIDER_MESSAGES.provider_timeout, retryable: true },
  provider_rejected: { message: PROVIDER_MESSAGES.provider_rejected, retryable: false },
  provider_quota_exceeded: { message: PROVIDER_MESSAGES.provider_quota_exceeded, retryable: false },
};

/** The longest a `duration` or `throttle` directive may ask for: well inside GENERATION_DEADLINE_SECONDS' default. */
export const TEST_MODE_MAX_SECONDS = 600;

/**
 * What a test organization's prompt (or edit instruction) asks for when its first word is a
 * directive (docs/api.md, "Testing your integration"). `rejected`: it starts with `test:` but is
 * no directive, so a typo never reaches a real provider.
 */
export type TestDirective =
  | { kind: 'succeed' }
  | { kind: 'fail'; code: GenerationErrorCode }
  | { kind: 'cancel' }
  | { kind: 'duration'; ms: number }
  | { kind: 'throttle'; ms: number }
  | { kind: 'rejected' };

const DIRECTIVE = /^\s*test:(\S*)/;

export function parseTestDirective(text: string): TestDirective | null {
  const m = DIRECTIVE.exec(text);
  if (!m) return null;
  const [word, arg] = m[1].split(/:(.*)/s, 2);
  if (word === 'succeed' && arg === undefined) return { kind: 'succeed' };
  if (word === 'cancel' && arg === undefined) return { kind: 'cancel' };
  if (word === 'fail' && arg !== undefined && Object.hasOwn(TEST_MODE_FAILURES, arg))
    return { kind: 'fail', code: arg as GenerationErrorCode };
  if ((word === 'duration' || word === 'throttle') && arg !== undefined && /^[1-9]\d{0,2}$/.test(arg)) {
    const seconds = Number(arg);
    if (seconds <= TEST_MODE_MAX_SECONDS) return { kind: word, ms: seconds * 1000 };
  }
  return { kind: 'rejected' };
}

/** The text a request's directive is read from: an edit's instruction, else the creation's prompt. */
function directiveOf(request: GenerationRequest): TestDirective | null {
  if (!request.testMode) return null;
  return parseTestDirective(request.edit ? request.edit.instruction : request.prompt);
}

/**
 * Whether test mode decides this request's outcome (a test organization's directive). Its
 * outcomes are made up, so the worker keeps them out of the provider's metrics and alerts.
 */
export function isTestModeRequest(request: GenerationRequest): boolean {
  return directiveOf(request) !== null;
}

/** Marks a job as this generator's own: it never reached the provider. */
const TEST_JOB = 'testMode';

/** A job test mode started (it never reached the provider). */
export function isTestModeJob(job: ProviderJob): boolean {
  return job.state?.[TEST_JOB] === true;
}

const isTestJob = isTestModeJob;

function simulatedFailure(code: GenerationErrorCode, options: { retryAfterMs?: number } = {}): GenerationError {
  const failure = TEST_MODE_FAILURES[code];
  return new GenerationError(code, failure.message, failure.retryable, { ...options, simulated: true });
}

/**
 * Deterministic outcomes for test organizations. A request of a test organization whose prompt
 * (or edit instruction) starts with a directive never reaches the provider: it succeeds with the
 * procedural generator's scene, fails with the code asked for, is reported cancelled, runs for
 * the time asked (polled like a provider's job, so every stage and its progress show), or is
 * throttled as a provider's 429 would be. Anything else — a live organization's request, a test
 * organization's ordinary prompt — goes to the configured generator unchanged.
 *
 * Its jobs carry their whole plan in their state (when they started, how long they run), so any
 * worker resumes them after a crash, as for a provider's. It keeps the configured generator's
 * name: a job is resumed only by the generator that started it, and switching test mode on or off
 * is not switching generators.
 */
export class TestModeSceneGenerator extends SceneGenerator {
  readonly name: string;

  constructor(
    readonly inner: SceneGenerator,
    /** Makes the scenes of succeeding directives: in process, at no provider's cost. */
    private readonly scenes: SceneGenerator,
    private readonly clock: Clock,
  ) {
    super();
    this.name = inner.name;
  }

  override async submit(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    const directive = directiveOf(request);
    if (!directive) return this.inner.submit(request, signal);
    const now = this.clock.now().getTime();
    switch (directive.kind) {
      case 'rejected':
        throw new GenerationError('provider_rejected', 'The prompt starts with "test:" but names no test-mode directive.', false, {
          simulated: true,
        });
      case 'throttle': {
        // Counted from the operation's acceptance, so the pause ends however often it is asked.
        const until = (request.acceptedAt?.getTime() ?? now) + directive.ms;
        if (now < until) throw simulatedFailure('provider_unavailable', { retryAfterMs: until - now });
        return this.scene(request, signal);
      }
      case 'succeed':
        return this.scene(request, signal);
      default:
        return {
          job: { id: `test_${request.idempotencyKey}`, state: { [TEST_JOB]: true, kind: directive.kind, ...planOf(directive, now) } },
        };
    }
  }

  override poll(job: ProviderJob, signal?: AbortSignal): Promise<JobPoll> {
    if (!isTestJob(job)) return this.inner.poll(job, signal);
    const state = job.state!;
    if (state.kind === 'fail') {
      return Promise.resolve({ status: 'failed', error: simulatedFailure(state.code as GenerationErrorCode) });
    }
    if (state.kind === 'cancel') return Promise.resolve({ status: 'cancelled' });
    const elapsed = this.clock.now().getTime() - Number(state.startedAt);
    const total = Number(state.ms);
    if (elapsed >= total) return Promise.resolve({ status: 'succeeded' });
    return Promise.resolve({ status: 'running', progress: Math.max(0, elapsed / total) });
  }

  override async fetch(job: ProviderJob, request: GenerationRequest, signal?: AbortSignal): Promise<GeneratedScene> {
    if (!isTestJob(job)) return this.inner.fetch(job, request, signal);
    const outcome = await this.scenes.submit(request, signal);
    if (!('scene' in outcome)) throw new Error('the test-mode scene generator must answer at once');
    return outcome.scene;
  }

  override cancel(job: ProviderJob, signal?: AbortSignal): Promise<boolean> {
    return isTestJob(job) ? Promise.resolve(true) : this.inner.cancel(job, signal);
  }

  override delete(job: ProviderJob, owner: ProviderJobOwner, signal?: AbortSignal): Promise<ProviderErasure> {
    // A test job left nothing anywhere but in our own tables.
    return isTestJob(job) ? Promise.resolve({ status: 'done', objects: [] }) : this.inner.delete(job, owner, signal);
  }

  private async scene(request: GenerationRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
    return this.scenes.submit(request, signal);
  }
}

function planOf(directive: TestDirective, now: number): Record<string, string | number> {
  switch (directive.kind) {
    case 'fail':
      return { code: directive.code };
    case 'duration':
      return { startedAt: now, ms: directive.ms };
    default:
      return {};
  }
}
