import { BlobStore, Clock, isInfrastructureError, JobData, JobName, OnJob } from '@app/core';
import { GenerationError, GenerationRequest, SceneGenerator, SceneSpec, SourceImageInput } from '@app/generation';
import { ImageAssetsService } from '@app/image-assets';
import { OperationEntity, OperationError, OperationFailures, OperationsRepository } from '@app/operations';
import { Injectable, Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { EntityManager } from 'typeorm';
import { SceneEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';

/** An edit found a newer version than it started from: start over from that one. */
class VersionMoved extends Error {}

/**
 * Performs `scene.generate` and `scene.edit` jobs. Every write is conditional and idempotent:
 * the result commits only while the operation is still processing and the scene not deleted,
 * in one transaction with the files, so a job that runs twice (stalled, retried, two replicas)
 * produces one version, and a deleted scene is never brought back.
 */
@Injectable()
export class SceneGenerationProcessor {
  private readonly logger = new Logger(SceneGenerationProcessor.name);

  constructor(
    private readonly scenes: ScenesRepository,
    private readonly operations: OperationsRepository,
    private readonly assets: ImageAssetsService,
    private readonly generator: SceneGenerator,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  @OnJob(JobName.SceneGenerate)
  generate(data: JobData<JobName.SceneGenerate>, job: Job): Promise<unknown> {
    return this.run(data.operationId, job);
  }

  @OnJob(JobName.SceneEdit)
  edit(data: JobData<JobName.SceneEdit>, job: Job): Promise<unknown> {
    return this.run(data.operationId, job);
  }

  private async run(operationId: string, job: Job): Promise<unknown> {
    const op = await this.operations.findById(operationId);
    if (!op || op.status !== 'processing') return { skipped: op ? op.status : 'unknown operation' };
    try {
      for (let round = 0; round < 5; round++) {
        try {
          return await this.attempt(op);
        } catch (e) {
          if (!(e instanceof VersionMoved)) throw e;
        }
      }
      throw new Error('scene version kept moving');
    } catch (e) {
      // The database (or Redis) is away: the job waits for it without spending an attempt
      // (JobWorkerHost). A provider's network failure is a GenerationError and is not this.
      if (!(e instanceof GenerationError) && isInfrastructureError(e)) throw e;
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const failure = safeFailure(e);
      if (e instanceof GenerationError) {
        this.logger.warn(`operation ${op.id}: ${e.code} (attempt ${job.attemptsMade + 1})`);
      } else {
        this.logger.error({ err: e, operationId: op.id }, `operation ${op.id} failed unexpectedly`);
      }
      if (lastAttempt || !failure.retryNow) {
        await this.fail(op, failure.error);
        // Recorded; make BullMQ stop retrying and count the job as failed.
        throw new UnrecoverableError(failure.error.code);
      }
      // Our code only: BullMQ keeps the message in Redis, and provider output stays out of it.
      throw e instanceof GenerationError ? new Error(e.code) : e instanceof Error ? e : new Error('generation failed');
    }
  }

  private async attempt(op: OperationEntity): Promise<unknown> {
    const scene = await this.scenes.findById(op.sceneId);
    if (!scene || scene.deletedAt) {
      await this.fail(op, OperationFailures.sceneDeleted());
      return { discarded: 'scene deleted' };
    }
    await this.operations.setProgress(op.id, 0.1, this.clock.now());
    const base = op.kind === 'scene.edit' ? scene.currentVersion : null;
    if (op.kind === 'scene.edit' && base === null) throw new Error('edit of a scene without a version');
    const version = base === null ? 1 : base + 1;
    const request: GenerationRequest = {
      sceneId: scene.id,
      version,
      prompt: scene.prompt,
      source: await this.sourceOf(scene),
      edit: op.kind === 'scene.edit' ? { previousSpec: await this.specOf(scene.id, base!), instruction: op.instruction ?? '' } : null,
    };
    await this.operations.setProgress(op.id, 0.25, this.clock.now());
    const generated = await this.generator.generate(request);
    await this.operations.setProgress(op.id, 0.9, this.clock.now());
    return this.scenes.transaction((tx) => this.commit(tx, op, scene.id, base, version, generated.spec, generated.glb));
  }

  private async commit(
    tx: EntityManager,
    op: OperationEntity,
    sceneId: string,
    base: number | null,
    version: number,
    spec: SceneSpec,
    glb: Buffer,
  ): Promise<unknown> {
    const scene = await this.scenes.lockById(tx, sceneId);
    const current = await this.operations.lockById(tx, op.id);
    if (!current || current.status !== 'processing') return { skipped: 'already finished' };
    const now = this.clock.now();
    if (!scene || scene.deletedAt) {
      // Files of a deleted scene are discarded: nothing below is written.
      await this.operations.markFailed(tx, op.id, OperationFailures.sceneDeleted(), now);
      return { discarded: 'scene deleted' };
    }
    if (op.kind === 'scene.edit' && scene.currentVersion !== base) throw new VersionMoved();
    const glbBlobKey = `scenes/${sceneId}/v${version}/scene.glb`;
    const inserted = await this.scenes.insertVersion(tx, {
      sceneId,
      version,
      operationId: op.id,
      spec: spec as unknown as Record<string, unknown>,
      glbBlobKey,
      glbBytes: glb.length,
      createdAt: now,
    });
    if (inserted) await this.blobs.put(glbBlobKey, glb, 'model/gltf-binary', tx);
    await this.scenes.markReady(tx, sceneId, version, now);
    await this.operations.markSucceeded(tx, op.id, version, now);
    return { version };
  }

  private async fail(op: OperationEntity, error: OperationError): Promise<void> {
    await this.scenes.transaction(async (tx) => {
      const now = this.clock.now();
      if (await this.operations.markFailed(tx, op.id, error, now)) {
        if (op.kind === 'scene.create') await this.scenes.markCreationFailed(tx, op.sceneId, now);
      }
    });
  }

  private async sourceOf(scene: SceneEntity): Promise<SourceImageInput | null> {
    if (!scene.sourceAssetId) return null;
    const stored = await this.assets.readBytes(scene.sourceAssetId);
    if (!stored) throw new GenerationError('generation_failed', 'The source image is no longer available.', false);
    const { asset, bytes } = stored;
    return { bytes, format: asset.format, width: asset.width, height: asset.height, sha256: asset.sha256 };
  }

  private async specOf(sceneId: string, version: number): Promise<SceneSpec> {
    const v = await this.scenes.findVersion(sceneId, version);
    if (!v) throw new Error(`version ${version} of ${sceneId} is missing`);
    return v.spec as unknown as SceneSpec;
  }
}

/** What a failure becomes: our own words only, never the exception text or provider output. */
function safeFailure(e: unknown): { error: OperationError; retryNow: boolean } {
  if (e instanceof GenerationError) {
    return { error: { code: e.code, message: e.message, retryable: e.retryable }, retryNow: e.retryable };
  }
  return { error: OperationFailures.generationFailed(), retryNow: true };
}
