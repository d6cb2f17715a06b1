import { WebhookOutbox } from '@app/webhooks';
import { BlobStore, BlobStream, Clock } from '@app/core';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SceneResponse } from './dto/scene.response';
import { SceneDeletionHooks } from './scene-deletion-hooks';
import { SceneEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';

@Injectable()
export class ScenesService {
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
  async lockForWrite(tx: EntityManager, scope: { organizationId: string; sceneId: string }): Promise<boolean> {
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
   * Unknown, foreign and already deleted ids are a silent no-op. In one transaction: the tombstone,
   * every registered hook (running operations fail, so no late result is written: libs/operations;
   * embed sessions revoke theirs and announce it; camera paths go) and `scene.deleted`. What the scene
   * holds (files, versions, prompt, externalRef, edit instructions, source image) is erased by the
   * purge job within minutes (ScenePurge, libs/operations), in small transactions, not in this request.
   */
  async delete(organizationId: string, id: string): Promise<void> {
    await this.scenes.transaction(async (tx) => {
      const scene = await this.scenes.lockUndeleted(tx, organizationId, id);
      if (!scene) return;
      const now = this.clock.now();
      await this.scenes.markDeleted(tx, scene.id, now);
      await this.deletionHooks.run(tx, { id: scene.id, organizationId: scene.organizationId }, now);
      await this.outbox.emit(tx, scene.organizationId, 'scene.deleted', { sceneId: scene.id, externalRef: scene.externalRef }, now);
    });
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
