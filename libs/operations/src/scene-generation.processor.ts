import {
  AppConfig,
  BlobStore,
  Clock,
  isInfrastructureError,
  JobData,
  noteJob,
  OnJob,
  RescheduleJob,
  sha256Hex,
  unrecoverableJobError,
  Tx,
} from '@app/core';
import {
  GeneratedScene,
  GenerationError,
  GenerationRequest,
  ProviderJob,
  SceneGenerator,
  SceneView,
  SourceImageInput,
  GENERATION_CONFIG,
  isTestModeJob,
  isTestModeRequest,
} from '@app/generation';
import { ImageAssetsService } from '@app/image-assets';
import { UsageService } from '@app/tenancy';
import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AdmissionSignal } from './admission-signal';
import { GenerationMetrics } from './generation-metrics';
import { OperationError, OperationFailures } from './operation-error';
import { OperationEntity, OperationStage } from './operation.entity';
import { OperationOutcomes } from './operation-outcomes';
import { OperationsRepository } from './operations.repository';
import { ProviderStarts } from './provider-starts';
import { SceneChanges } from './scene-changes';
import { SceneReverts } from './scene-reverts';
import { SceneEntity } from '@app/scenes';
import { SceneStore } from '@app/scenes';
import { SceneJob } from './operations.jobs';
import { TestOrganizations } from './test-organizations';
import { OperationLocks } from './operation-locks';

/** An edit found a newer version than it started from: start over from that one. */
class VersionMoved extends Error {}

/**
 * What a partner's `progress` reads at each stage. A provider's own progress (0 to 1) is spread
 * over the generating span; the rest is ours (fetching and storing the files).
 */
const PROGRESS = { started: 0.05, generatingEnd: 0.85, downloading: 0.85, storing: 0.95 } as const;

const EXTENSIONS: Record<string, string> = {
  'model/gltf-binary': 'glb',
  'application/vnd.niantic.spz': 'spz',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/**
 * Performs `scene.generate` and `scene.edit` jobs (a revert, an edit with `revertTo`, is committed
 * by SceneReverts without the generator), for generators that answer at once (the
 * procedural one) and for providers whose jobs run for minutes:
 *
 * 1. **Submit.** The request goes to the generator. A provider answers with a job, which is
 *    recorded on the operation before anything else; the BullMQ job then goes back to the delayed
 *    set (`RescheduleJob`), holding no worker slot and no transaction while the provider works.
 * 2. **Poll.** Each run reads the recorded job's state: still running (progress recorded, back to
 *    the delayed set with a growing pause), failed (recorded), or done (3). A worker killed at any
 *    point leaves the job recorded, and whichever worker runs it next polls the same provider job:
 *    nothing is submitted twice, except in the instant between a provider accepting a submit and
 *    our write of its id (docs/generation-provider.md says how each provider narrows that).
 * 3. **Fetch and commit.** The files are downloaded and checked, then written in one transaction
 *    with the version, conditional on the operation still processing and the scene not deleted:
 *    a job that runs twice produces one version, and a cancelled or deleted one writes nothing.
 *
 * Provider trouble while waiting (5xx, 429, timeouts) is waited out until the generation's
 * deadline without spending attempts; attempts are for failures of the submit itself.
 */
@Injectable()
export class SceneGenerationProcessor {
  private readonly logger = new Logger(SceneGenerationProcessor.name);

  constructor(
    private readonly scenes: SceneStore,
    private readonly operations: OperationsRepository,
    private readonly outcomes: OperationOutcomes,
    private readonly assets: ImageAssetsService,
    private readonly generator: SceneGenerator,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly reverts: SceneReverts,
    private readonly usage: UsageService,
    private readonly starts: ProviderStarts,
    private readonly admission: AdmissionSignal,
    private readonly metrics: GenerationMetrics,
    private readonly changes: SceneChanges,
    private readonly locks: OperationLocks,
    private readonly testOrganizations: TestOrganizations,
  ) {}

  @OnJob(SceneJob.Generate)
  generate(data: JobData<typeof SceneJob.Generate>, job: Job): Promise<unknown> {
    return this.run(data.operationId, job);
  }

  @OnJob(SceneJob.Edit)
  edit(data: JobData<typeof SceneJob.Edit>, job: Job): Promise<unknown> {
    return this.run(data.operationId, job);
  }

  private async run(operationId: string, job: Job): Promise<unknown> {
    try {
      return await this.step(operationId, job);
    } finally {
      // A start, an end or a pause changed what the fleet runs: admission may have room now.
      this.admission.wake();
    }
  }

  private async step(operationId: string, job: Job): Promise<unknown> {
    const op = await this.operations.findById(operationId);
    if (!op) return { skipped: 'unknown operation' };
    noteJob(job, { organizationId: op.organizationId });
    if (op.status !== 'processing') {
      // Cancelled by its partner, or its scene deleted, after a worker started it: its work is
      // followed to its end, which frees its slot.
      if (op.stage === 'cancelling') return this.windDown(op);
      await this.cancelAtProvider(op);
      return { skipped: op.status };
    }
    try {
      return await (op.providerJob ? this.resume(op) : this.start(op));
    } catch (e) {
      if (e instanceof RescheduleJob) throw e;
      // The database (or Redis) is away: the job waits for it without spending an attempt
      // (JobWorkerHost). A provider's network failure is a GenerationError and is not this.
      if (!(e instanceof GenerationError) && isInfrastructureError(e)) throw e;
      // A provider that asked for a pause (429 with Retry-After: Marble allows a few starts a
      // minute) is waited for without spending an attempt, within the generation's deadline.
      if (e instanceof GenerationError && e.retryable && e.retryAfterMs !== undefined && !op.providerJob) {
        const waitedMs = this.clock.now().getTime() - op.createdAt.getTime();
        if (waitedMs + e.retryAfterMs < this.config.slice(GENERATION_CONFIG).deadlineMs) {
          this.logger.warn(`operation ${op.id}: ${this.generator.name} asked for ${e.retryAfterMs} ms before the submit; the fleet waits`);
          if (!e.simulated) this.metrics.throttled('provider');
          // The provider counts starts per account: every worker holds back, not this job alone,
          // and the operation shows it waits (`queued`, its progress as it was).
          // A test organization's simulated throttle holds back its own operation only, never the fleet.
          if (!(await this.testOrganizations.isTest(op.organizationId))) {
            await this.starts
              .pause(e.retryAfterMs)
              .catch((p: Error) => this.logger.warn(`could not pause the fleet's starts: ${p.message}`));
          }
          await this.progress(op, 'queued', 0);
          throw new RescheduleJob(Math.max(e.retryAfterMs, this.config.slice(GENERATION_CONFIG).pollIntervalMs));
        }
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const failure = safeFailure(e);
      if (e instanceof GenerationError) {
        this.logger.warn(`operation ${op.id}: ${e.code} (attempt ${job.attemptsMade + 1})`);
      } else {
        this.logger.error({ err: e, operationId: op.id }, `operation ${op.id} failed unexpectedly`);
      }
      if (lastAttempt || !failure.retryNow) {
        await this.fail(op, failure.error, 0, e instanceof GenerationError && e.simulated);
        // Recorded; make BullMQ stop retrying and count the job as failed.
        throw unrecoverableJobError(failure.error.code);
      }
      // Our code only: BullMQ keeps the message in Redis, and provider output stays out of it.
      throw e instanceof GenerationError ? new Error(e.code) : e instanceof Error ? e : new Error('generation failed');
    }
  }

  /** Submits, then either commits (an in-process generator) or records the provider's job and waits. */
  private async start(op: OperationEntity): Promise<unknown> {
    // A revert restores a stored version: nothing to ask the generator.
    if (op.revertTo !== null) return this.reverts.commit(op);
    for (let round = 0; round < 5; round++) {
      const scene = await this.scenes.findById(op.sceneId);
      if (!scene || scene.deletedAt) {
        await this.fail(op, OperationFailures.sceneDeleted());
        return { discarded: 'scene deleted' };
      }
      // A start within GENERATION_PROVIDER_RATE and outside any pause a provider's 429 set, taken
      // now, as the submit goes out. Without one the job waits, queued, spending no attempt.
      const waitMs = await this.starts.take();
      if (waitMs > 0) {
        this.metrics.throttled('start_limit');
        await this.progress(op, 'queued', 0);
        throw new RescheduleJob(waitMs);
      }
      // The start is recorded before anything is sent: a cancel from here on keeps the slot until
      // this work ends, and one before it means nothing is sent at all.
      if (!(await this.progress(op, 'generating', PROGRESS.started))) {
        // Ended meanwhile. Nothing of this run is still working (an edit's earlier round ended in
        // its commit), so a slot it still holds is free now.
        await this.scenes.transaction((tx) => this.outcomes.slotReleased(tx, op.id, 0, this.clock.now()));
        return { skipped: 'ended before its start' };
      }
      const request = await this.request(op, scene, { withSource: true });
      const outcome = await this.generator.submit(request);
      if ('scene' in outcome) {
        try {
          return await this.store(op, request, outcome.scene);
        } catch (e) {
          if (e instanceof VersionMoved) continue;
          throw e;
        }
      }
      if (!(await this.operations.recordJob(op.id, this.generator.name, outcome.job, this.clock.now()))) {
        // Finished meanwhile, or another run of this job recorded its own submit first.
        this.logger.warn(`operation ${op.id}: a job was submitted that is not needed; cancelling it at the provider`);
        await this.cancelJob(op.id, outcome.job);
        return { discarded: 'not needed' };
      }
      this.logger.log(`operation ${op.id}: submitted to ${this.generator.name}`);
      throw new RescheduleJob(this.pollDelayMs(0));
    }
    throw new Error('scene version kept moving');
  }

  /** Polls the recorded provider job; fetches and commits its result once it is done. */
  private async resume(op: OperationEntity): Promise<unknown> {
    const job: ProviderJob = op.providerJob!;
    if (op.generator !== this.generator.name) {
      // The operator switched generators with this job in flight: it cannot be read from here.
      await this.fail(op, OperationFailures.generationFailed());
      return { discarded: `job of generator ${op.generator}` };
    }
    const elapsedMs = this.clock.now().getTime() - (op.submittedAt ?? op.createdAt).getTime();
    if (elapsedMs > this.config.slice(GENERATION_CONFIG).deadlineMs) {
      await this.fail(op, { code: 'provider_timeout', message: 'The scene took too long to generate.', retryable: true });
      await this.cancelAtProvider({ ...op, status: 'failed' });
      return { failed: 'deadline' };
    }
    // What the provider reported the job cost, counted once with its end.
    let costUnits = 0;
    try {
      const poll = await this.generator.poll(job);
      if (poll.status !== 'running') costUnits = poll.costUnits ?? 0;
      if (poll.status === 'failed' || poll.status === 'cancelled') {
        // A job that ended without a result is final: polling it again would only say so again.
        const error = poll.status === 'cancelled' ? OperationFailures.cancelledAtProvider() : poll.error;
        await this.fail(op, { code: error.code, message: error.message, retryable: error.retryable }, costUnits, isTestModeJob(job));
        await this.cancelAtProvider({ ...op, status: 'failed' });
        return { failed: error.code };
      }
      if (poll.job) await this.operations.replaceJob(op.id, poll.job, this.clock.now());
      if (poll.status === 'running') {
        if (poll.progress !== null) {
          await this.progress(op, 'generating', PROGRESS.started + (PROGRESS.generatingEnd - PROGRESS.started) * poll.progress);
        } else {
          await this.operations.touch(op.id, this.clock.now());
        }
        throw new RescheduleJob(this.pollDelayMs(elapsedMs, poll.retryAfterMs));
      }
      const scene = await this.scenes.findById(op.sceneId);
      if (!scene || scene.deletedAt) return { discarded: 'scene deleted' };
      await this.progress(op, 'downloading', PROGRESS.downloading);
      const request = await this.request(op, scene, { withSource: false });
      const result = await this.generator.fetch(poll.job ?? job, request);
      try {
        return await this.store(op, request, result, costUnits);
      } catch (e) {
        if (!(e instanceof VersionMoved)) throw e;
        // Another edit landed first, and this result was made from the version before it.
        await this.fail(op, OperationFailures.generationFailed(), costUnits);
        return { discarded: 'version moved' };
      }
    } catch (e) {
      // A provider that is slow, busy or briefly away is waited out until the deadline; a
      // provider failure that will not pass (401, 402, a failed job, a corrupt file) is recorded.
      if (e instanceof GenerationError && e.retryable && e.code !== 'generation_failed') {
        this.logger.warn(`operation ${op.id}: ${e.code} while waiting on ${this.generator.name}; polling again later`);
        throw new RescheduleJob(this.pollDelayMs(elapsedMs, e.retryAfterMs));
      }
      if (e instanceof GenerationError) {
        await this.fail(op, { code: e.code, message: e.message, retryable: e.retryable }, costUnits);
        await this.cancelAtProvider({ ...op, status: 'failed' });
        return { failed: e.code };
      }
      throw e;
    }
  }

  /**
   * The pause before the next poll: GENERATION_POLL_INTERVAL_MS at first, then a tenth of the
   * time the job has run so far, at most GENERATION_POLL_MAX_MS, and never shorter than what
   * the provider asked for. A five-minute job is polled about forty times.
   */
  private pollDelayMs(elapsedMs: number, providerAskedMs?: number): number {
    const g = this.config.slice(GENERATION_CONFIG);
    const base = Math.min(g.pollMaxMs, Math.max(g.pollIntervalMs, Math.round(elapsedMs / 10)));
    return Math.min(Math.max(base, providerAskedMs ?? 0), 3_600_000);
  }

  /** False when the operation is no longer processing (nothing was recorded). */
  private async progress(op: OperationEntity, stage: OperationStage, progress: number): Promise<boolean> {
    const recorded = await this.operations.setProgress(op.id, stage, progress, this.clock.now());
    // The studio shows a creation's progress; an edit turn's shows nowhere.
    if (recorded && op.kind === 'scene.create') this.changes.changed(op.sceneId);
    return recorded;
  }

  private async request(op: OperationEntity, scene: SceneEntity, opts: { withSource: boolean }): Promise<GenerationRequest> {
    const base = op.kind === 'scene.edit' ? scene.currentVersion : null;
    if (op.kind === 'scene.edit' && base === null) throw new Error('edit of a scene without a version');
    // Only a purged tombstone has no prompt, and callers stop at a deleted scene before this.
    if (scene.prompt === null) throw new Error(`scene ${scene.id} has been purged`);
    return {
      sceneId: scene.id,
      version: base === null ? 1 : base + 1,
      prompt: scene.prompt,
      source: opts.withSource ? await this.sourceOf(scene) : null,
      edit: op.kind === 'scene.edit' ? { previous: await this.viewOf(scene.id, base!), instruction: op.instruction ?? '' } : null,
      idempotencyKey: op.id,
      testMode: await this.testOrganizations.isTest(op.organizationId),
      acceptedAt: op.createdAt,
    };
  }

  /** Writes the version and its files in one transaction, conditionally (see the class comment). */
  private async store(op: OperationEntity, request: GenerationRequest, generated: GeneratedScene, costUnits = 0): Promise<unknown> {
    await this.progress(op, 'storing', PROGRESS.storing);
    const base = request.edit ? request.version - 1 : null;
    const committed = await this.scenes.transaction((tx) =>
      this.commit(tx, op, request.sceneId, base, request.version, generated, costUnits),
    );
    // Test mode's outcomes are made up: the provider's metrics (and its alerts) never see them.
    if ('version' in committed && !isTestModeRequest(request)) this.metrics.succeeded(op.kind);
    return committed;
  }

  private async commit(
    tx: Tx,
    op: OperationEntity,
    sceneId: string,
    base: number | null,
    version: number,
    generated: GeneratedScene,
    costUnits: number,
  ): Promise<{ version: number } | { skipped: string } | { discarded: string }> {
    const { scene, operation: current } = await this.locks.lockSceneThenOperation(tx, sceneId, op.id);
    if (!current || current.status !== 'processing') {
      // Cancelled (or its scene deleted) while this worker made it: its work has ended now.
      if (current?.stage === 'cancelling') await this.outcomes.slotReleased(tx, op.id, costUnits, this.clock.now());
      return { skipped: 'already finished' };
    }
    const now = this.clock.now();
    // The provider's work was done, and charged, whatever happens to its result.
    await this.usage.providerCost(tx, op.organizationId, costUnits, now);
    if (!scene || scene.deletedAt) {
      // Files of a deleted scene are discarded: nothing below is written.
      await this.outcomes.failed(tx, op.id, OperationFailures.sceneDeleted(), now);
      return { discarded: 'scene deleted' };
    }
    if (op.kind === 'scene.edit' && scene.currentVersion !== base) throw new VersionMoved();
    const inserted = await this.scenes.insertVersion(tx, {
      sceneId,
      version,
      operationId: op.id,
      generator: this.generator.name,
      spec: generated.spec as unknown as Record<string, unknown>,
      createdAt: now,
    });
    if (inserted) {
      for (const a of generated.artifacts) {
        const blobKey = `scenes/${sceneId}/v${version}/${a.kind}.${EXTENSIONS[a.contentType] ?? 'bin'}`;
        await this.blobs.put(blobKey, a.bytes, a.contentType, tx);
        await this.scenes.insertArtifact(tx, {
          sceneId,
          version,
          kind: a.kind,
          blobKey,
          contentType: a.contentType,
          bytes: a.bytes.length,
          sha256: sha256Hex(a.bytes),
        });
      }
      await this.usage.stored(
        tx,
        op.organizationId,
        generated.artifacts.reduce((n, a) => n + a.bytes.length, 0),
        now,
      );
    }
    await this.scenes.markReady(tx, sceneId, version, now);
    await this.outcomes.succeeded(tx, op.id, version, now);
    return { version };
  }

  private async fail(op: OperationEntity, error: OperationError, costUnits = 0, simulated = false): Promise<void> {
    const ended = await this.scenes.transaction(async (tx) => {
      const now = this.clock.now();
      await this.locks.lockSceneBeforeOperation(tx, op.sceneId);
      if (!(await this.outcomes.failed(tx, op.id, error, now))) return false;
      if (op.kind === 'scene.create') await this.scenes.markCreationFailed(tx, op.sceneId, now);
      await this.usage.providerCost(tx, op.organizationId, costUnits, now);
      return true;
    });
    if (ended && !simulated) this.metrics.failed(op.kind, error.code);
  }

  /**
   * An operation that ended while its work went on (`cancelling`): its provider job is cancelled
   * where the provider can, then polled until the provider reports its end (Marble cannot cancel:
   * the world is made to its end), and only then is its slot freed, with what the provider
   * reported it cost. Work that ran in a worker (no provider job) has ended once this runs: a job
   * runs on one worker at a time, and the run that made it has ended or committed.
   */
  private async windDown(op: OperationEntity): Promise<unknown> {
    const release = async (costUnits: number, why: string) => {
      await this.scenes.transaction((tx) => this.outcomes.slotReleased(tx, op.id, costUnits, this.clock.now()));
      return { released: why };
    };
    if (!op.providerJob || op.generator !== this.generator.name) return release(0, 'no work left');
    await this.cancelAtProvider(op);
    const elapsedMs = this.clock.now().getTime() - (op.submittedAt ?? op.createdAt).getTime();
    if (elapsedMs > this.config.slice(GENERATION_CONFIG).deadlineMs) return release(0, 'deadline');
    try {
      const poll = await this.generator.poll(op.providerJob);
      if (poll.status === 'running') throw new RescheduleJob(this.pollDelayMs(elapsedMs, poll.retryAfterMs));
      return await release(poll.costUnits ?? 0, `provider job ${poll.status}`);
    } catch (e) {
      if (e instanceof RescheduleJob) throw e;
      // A provider briefly away is waited out, as for a running job; one that will not answer is
      // let go at the deadline above.
      if (e instanceof GenerationError && e.retryable) throw new RescheduleJob(this.pollDelayMs(elapsedMs, e.retryAfterMs));
      if (e instanceof GenerationError) return release(0, `provider job ${e.code}`);
      throw e;
    }
  }

  /** Cancels a finished operation's provider job, once, where this generator started it. */
  private async cancelAtProvider(op: OperationEntity): Promise<void> {
    if (op.status !== 'failed' || !op.providerJob || op.providerCancelledAt || op.generator !== this.generator.name) return;
    if (!(await this.operations.markProviderCancelled(op.id, this.clock.now()))) return;
    await this.cancelJob(op.id, op.providerJob);
  }

  private async cancelJob(operationId: string, job: ProviderJob): Promise<void> {
    try {
      const cancelled = await this.generator.cancel(job);
      this.logger.log(`operation ${operationId}: provider job ${cancelled ? 'cancelled' : 'left to finish (the provider cannot cancel)'}`);
    } catch (e) {
      this.logger.warn(`operation ${operationId}: could not cancel its provider job (${(e as Error).message})`);
    }
  }

  private async sourceOf(scene: SceneEntity): Promise<SourceImageInput | null> {
    if (!scene.sourceAssetId) return null;
    const stored = await this.assets.readBytes(scene.sourceAssetId);
    if (!stored) throw new GenerationError('generation_failed', 'The source image is no longer available.', false);
    const { asset, bytes } = stored;
    // The digest of the bytes sent: the stored copy, without the upload's metadata, is not the
    // upload whose digest `asset.sha256` is.
    return { bytes, format: asset.format, width: asset.width, height: asset.height, sha256: sha256Hex(bytes) };
  }

  private async viewOf(sceneId: string, version: number): Promise<SceneView> {
    const v = await this.scenes.findVersion(sceneId, version);
    if (!v) throw new Error(`version ${version} of ${sceneId} is missing`);
    return v.spec as unknown as SceneView;
  }
}

/** What a failure becomes: our own words only, never the exception text or provider output. */
function safeFailure(e: unknown): { error: OperationError; retryNow: boolean } {
  if (e instanceof GenerationError) {
    return { error: { code: e.code, message: e.message, retryable: e.retryable }, retryNow: e.retryable };
  }
  return { error: OperationFailures.generationFailed(), retryNow: true };
}
