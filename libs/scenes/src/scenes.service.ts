import { WebhookOutbox } from '@app/webhooks';
import { BlobStore, BlobStream, Clock, Tx } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { SceneResponse } from './dto/scene.response';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';

@Injectable()
export class ScenesService {
  private readonly logger = new Logger(ScenesService.name);

  constructor(
    private readonly scenes: ScenesRepository,
    private readonly deletionHooks: SceneDeletionHooks,
    private readonly outbox: WebhookOutbox,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Locks the organization's active scene row until `tx` ends, as the scene's deletion locks it
   * first (docs/architecture.md, "Lock order"): a lib whose rows must not outlive the scene (saved
   * camera paths) takes it before writing them. False when no such scene exists, or it is deleted.
   */
  async lockForWrite(tx: Tx, scope: { organizationId: string; sceneId: string }): Promise<boolean> {
    return (await this.scenes.lockActive(tx, scope.organizationId, scope.sceneId)) !== null;
  }

  async get(organizationId: string, id: string): Promise<SceneResponse | null> {
    const scene = await this.scenes.findActive(organizationId, id);
    return scene ? toSceneResponse(scene) : null;
  }

  async findByExternalRef(organizationId: string, externalRef: string): Promise<SceneResponse | null> {
    const scene = await this.scenes.findActiveByExternalRef(organizationId, externalRef);
    return scene ? toSceneResponse(scene) : null;
  }

  /**
   * Deletes at once and idempotently, in any state: generating, ready, or a creation that failed
   * or was cancelled (hidden from the API already, but its embed sessions may still be open).
   * Unknown, foreign and already deleted ids are a silent no-op. In one short transaction: the
   * tombstone, every registered hook (running operations fail, so no late result is written:
   * libs/operations; open studios are told once it commits: embed sessions; camera paths go) and
   * `scene.deleted`. From its commit the scene grants nothing: every studio call checks it.
   * Then the follow-ups, whose work grows with what the scene had (embed sessions mark theirs
   * revoked and announce it, thousands of rows for a popular scene), are handed to a job when
   * they have anything to do: the answer does not wait for them, so it takes as long with 15 000
   * open studios as with none, and a scene nobody had open costs no job. Should the job be lost
   * (Redis away, a process dying in between), the purge runs them. What the scene holds (files,
   * versions, prompt, externalRef, edit instructions, source image) is erased by the purge job
   * within minutes (ScenePurge, libs/operations), in small transactions, not in this request.
   */
  async delete(organizationId: string, id: string): Promise<void> {
    const deleted = await this.scenes.transaction(async (tx) => {
      const scene = await this.scenes.lockUndeleted(tx, organizationId, id);
      if (!scene) return null;
      const now = this.clock.now();
      await this.scenes.markDeleted(tx, scene.id, now);
      const ref = { id: scene.id, organizationId: scene.organizationId };
      await this.deletionHooks.run(tx, ref, now);
      await this.outbox.emit(tx, scene.organizationId, 'scene.deleted', { sceneId: scene.id, externalRef: scene.externalRef }, now);
      return { ref, followUps: await this.deletionHooks.followUpsPending(tx, ref, now) };
    });
    if (!deleted?.followUps) return;
    // The deletion stands whatever happens here: a failure is the purge's to finish.
    await this.deletionHooks
      .scheduleFollowUps(deleted.ref)
      .catch((e: Error) =>
        this.logger.warn(`scene ${deleted.ref.id}: the deletion's follow-ups could not be scheduled (${e.message}); the purge runs them`),
      );
  }

  /** A version's files (kind, type, size, digest), for the studio; ownership and liveness are checked by the caller. */
  async listArtifacts(sceneId: string, version: number): Promise<SceneArtifactInfo[]> {
    return (await this.scenes.artifactsOf(sceneId, version)).map(({ kind, contentType, bytes, sha256 }) => ({
      kind,
      contentType,
      bytes,
      sha256,
    }));
  }

  /** One file of a version, for the studio; null when the version has no file of that kind. */
  async readArtifact(
    sceneId: string,
    version: number,
    kind: string,
  ): Promise<{ bytes: Buffer; contentType: string; sha256: string } | null> {
    const artifact = (await this.scenes.artifactsOf(sceneId, version)).find((a) => a.kind === kind);
    const blob = artifact ? await this.blobs.get(artifact.blobKey) : null;
    return blob && artifact ? { bytes: blob.bytes, contentType: artifact.contentType, sha256: artifact.sha256 } : null;
  }

  /**
   * One file of a version opened as a stream, for the studio to pass on without holding it
   * (a splat can be hundreds of MiB); null when the version has no file of that kind.
   */
  async openArtifact(sceneId: string, version: number, kind: string): Promise<(BlobStream & { sha256: string }) | null> {
    const artifact = (await this.scenes.artifactsOf(sceneId, version)).find((a) => a.kind === kind);
    const blob = artifact ? await this.blobs.open(artifact.blobKey) : null;
    return blob && artifact ? { ...blob, contentType: artifact.contentType, sha256: artifact.sha256 } : null;
  }

  /** The mesh of a version (the GLB the studio has always loaded). */
  async readSceneFile(sceneId: string, version: number): Promise<Buffer | null> {
    return (await this.readArtifact(sceneId, version, 'mesh'))?.bytes ?? null;
  }

  async readSpec(sceneId: string, version: number): Promise<Record<string, unknown> | null> {
    return (await this.scenes.findVersion(sceneId, version))?.spec ?? null;
  }
}

export function toSceneResponse(s: SceneEntity): SceneResponse {
  return {
    sceneId: s.id,
    externalRef: s.externalRef,
    status: s.status === 'ready' ? 'ready' : 'generating',
    version: s.currentVersion ?? 1,
    operationId: s.creatingOperationId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** A version's file as the studio lists it: never its bytes' location. */
export interface SceneArtifactInfo {
  kind: string;
  contentType: string;
  bytes: number;
  sha256: string;
}
