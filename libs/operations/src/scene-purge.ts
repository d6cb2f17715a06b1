import { BlobStore, Clock, OnJob, Tx } from '@app/core';
import { ImageAssetErasure } from '@app/image-assets';
import { Injectable, Logger } from '@nestjs/common';
import { OperationsRepository } from './operations.repository';
import { ProviderErasureRunResult, ProviderErasures } from './provider-erasures';
import { PurgeCandidate, SceneDeletionHooks, SceneStore } from '@app/scenes';
import { SceneJob } from './operations.jobs';

/** File rows (and their blobs) erased per transaction: a scene with many versions takes several. */
const FILE_BATCH = 100;
const VERSION_BATCH = 500;
/** Transactions per run; the next run, 5 minutes later, goes on with what is left. */
const MAX_STEPS_PER_RUN = 2000;

export interface ScenePurgeResult {
  /** Deleted scenes purged to their tombstone. */
  scenes: number;
  /** Blobs of generated files deleted (a revert's files are shared with the version it restored). */
  files: number;
  /** Source images erased because no scene named them any more. */
  sourceImages: number;
  /** What the providers were asked to delete of the purged scenes' jobs, after our own erasure (ProviderErasures). */
  provider: ProviderErasureRunResult;
}

type Step = { kind: 'none' } | { kind: 'files'; deleted: number } | { kind: 'versions' } | { kind: 'purged'; sourceImage: boolean };

/**
 * Deletion erases (docs/api.md, `DELETE /v1/scenes/{sceneId}`): what a deleted scene held is
 * erased by this job, a few minutes after the deletion (`scenes.purge-deleted`, every 5 minutes on
 * the worker): its generated files (the blob store), its versions, its source image unless another
 * scene still names it, its prompt, externalRef and edit instructions (and it finishes the
 * deletion's follow-ups, should their job, `scenes.finish-deletion`, have been lost); then the
 * provider's copies of what its jobs were sent and made (ProviderErasures), which never hold up
 * our own erasure. What stays is an identifier tombstone:
 * the `scenes` row (id, organization, status and timestamps, `purged_at`), so late work still sees
 * the scene is deleted, 404s stay 404s and a replay of the creating request (its idempotency
 * record, kept 24 hours) still answers the same operation.
 *
 * Each step is one short transaction on one scene, taken with SKIP LOCKED: a batch of files, a
 * batch of versions, or the final erasure. Workers running it at once take different scenes; a
 * worker killed mid-step rolls its step back, and the next run does it again (every step is
 * idempotent: deleting a blob twice is a no-op).
 */
@Injectable()
export class ScenePurge {
  private readonly logger = new Logger(ScenePurge.name);

  constructor(
    private readonly scenes: SceneStore,
    private readonly operations: OperationsRepository,
    private readonly images: ImageAssetErasure,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly providers: ProviderErasures,
    private readonly deletionHooks: SceneDeletionHooks,
  ) {}

  @OnJob(SceneJob.PurgeDeleted)
  async purgeDeleted(): Promise<ScenePurgeResult> {
    const result: Omit<ScenePurgeResult, 'provider'> = { scenes: 0, files: 0, sourceImages: 0 };
    for (let i = 0; i < MAX_STEPS_PER_RUN; i++) {
      const step = await this.scenes.transaction((tx) => this.step(tx));
      if (step.kind === 'none') break;
      if (step.kind === 'files') result.files += step.deleted;
      if (step.kind === 'purged') {
        result.scenes += 1;
        if (step.sourceImage) result.sourceImages += 1;
      }
    }
    if (result.scenes + result.files > 0) {
      this.logger.log(`purged ${result.scenes} deleted scene(s): ${result.files} file(s), ${result.sourceImages} source image(s)`);
    }
    // Ours is done (committed above); the providers' copies come after, and fail on their own.
    return { ...result, provider: await this.providers.run() };
  }

  /**
   * A deletion's follow-ups (SceneDeletionHooks: its embed sessions marked revoked and announced),
   * enqueued once it committed so the DELETE's answer does not wait for them. Idempotent, like
   * their run from the purge: whichever comes second finds nothing left to do. A scene that is not
   * deleted (a job for an id that never was) is left alone.
   */
  @OnJob(SceneJob.FinishDeletion)
  async finishDeletion({ sceneId }: { sceneId: string }): Promise<{ finished: boolean }> {
    const scene = await this.scenes.findById(sceneId);
    if (!scene?.deletedAt) return { finished: false };
    const deletedAt = scene.deletedAt;
    await this.scenes.transaction((tx) =>
      this.deletionHooks.runFollowUps(tx, { id: scene.id, organizationId: scene.organizationId }, deletedAt),
    );
    return { finished: true };
  }

  /** One bounded piece of work on the oldest deleted scene not yet purged that no one else holds. */
  private async step(tx: Tx): Promise<Step> {
    const scene = await this.scenes.lockNextToPurge(tx);
    if (!scene) return { kind: 'none' };
    // Files first: a version's rows are what name its blobs.
    const keys = await this.scenes.deleteArtifactBatch(tx, scene.id, FILE_BATCH);
    if (keys.length > 0) return { kind: 'files', deleted: await this.blobs.delete(keys, tx) };
    if ((await this.scenes.deleteVersionBatch(tx, scene.id, VERSION_BATCH)) > 0) return { kind: 'versions' };
    // The deletion's follow-ups (embed sessions revoked and announced) ran in their job unless it
    // was lost: run them again, which finds nothing to do when they did.
    await this.deletionHooks.runFollowUps(tx, { id: scene.id, organizationId: scene.organizationId }, scene.deletedAt);
    await this.providers.record(tx, scene.id);
    await this.operations.eraseOfDeletedScene(tx, scene.id, scene.deletedAt);
    const sourceImage = await this.releaseSourceImage(tx, scene);
    await this.scenes.markPurged(tx, scene.id, this.clock.now());
    return { kind: 'purged', sourceImage };
  }

  /**
   * The scene stops naming its source image, which is erased if no other scene names it: an
   * active scene of the organization keeps it, and so does another deleted scene not purged yet
   * (whose own purge erases it last). The image is locked before the check (ImageAssetErasure), so
   * a creation attaching it at the same moment is either seen or refused.
   */
  private async releaseSourceImage(tx: Tx, scene: PurgeCandidate): Promise<boolean> {
    const assetId = scene.sourceAssetId;
    if (!assetId) return false;
    await this.scenes.releaseSourceImage(tx, scene.id);
    return this.images.eraseUnlessUsed(tx, assetId, () => this.scenes.namesSourceImage(tx, assetId));
  }
}
