import { Injectable } from '@nestjs/common';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';
import { AlongsideRows, PurgeCandidate, ScenesRepository } from './scenes.repository';
import { Tx } from '@app/core';

export type { AlongsideRows, PurgeCandidate } from './scenes.repository';

/**
 * The scene aggregate as the operations lib changes it: a creation's scene, an edit's lock, a
 * generation's version and files, a failed creation, and the purge of a deleted scene. Each method
 * is one repository call, so the scenes' tables stay this lib's (no other lib gets
 * ScenesRepository); the rules around them (lock order, conditional commits) are the caller's.
 * Unscoped by organization: the callers already hold an operation of the scene. What partners
 * reach goes through ScenesService, which is scoped.
 */
@Injectable()
export class SceneStore {
  constructor(private readonly scenes: ScenesRepository) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.scenes.transaction(fn);
  }

  insertWith(tx: Tx, scene: SceneEntity, alongside: AlongsideRows): Promise<void> {
    return this.scenes.insertWith(tx, scene, alongside);
  }

  findById(id: string): Promise<SceneEntity | null> {
    return this.scenes.findById(id);
  }

  lockById(tx: Tx, id: string): Promise<SceneEntity | null> {
    return this.scenes.lockById(tx, id);
  }

  lockActive(tx: Tx, organizationId: string, id: string): Promise<SceneEntity | null> {
    return this.scenes.lockActive(tx, organizationId, id);
  }

  touch(tx: Tx, id: string, at: Date): Promise<void> {
    return this.scenes.touch(tx, id, at);
  }

  markReady(tx: Tx, id: string, version: number, at: Date): Promise<void> {
    return this.scenes.markReady(tx, id, version, at);
  }

  markCreationFailed(tx: Tx, id: string, at: Date): Promise<void> {
    return this.scenes.markCreationFailed(tx, id, at);
  }

  insertVersion(tx: Tx, v: SceneVersionEntity): Promise<boolean> {
    return this.scenes.insertVersion(tx, v);
  }

  insertArtifact(tx: Tx, a: SceneArtifactEntity): Promise<void> {
    return this.scenes.insertArtifact(tx, a);
  }

  artifactsOf(sceneId: string, version: number, tx?: Tx): Promise<SceneArtifactEntity[]> {
    return this.scenes.artifactsOf(sceneId, version, tx);
  }

  findVersion(sceneId: string, version: number, tx?: Tx): Promise<SceneVersionEntity | null> {
    return this.scenes.findVersion(sceneId, version, tx);
  }

  lockNextToPurge(tx: Tx): Promise<PurgeCandidate | null> {
    return this.scenes.lockNextToPurge(tx);
  }

  deleteArtifactBatch(tx: Tx, sceneId: string, limit: number): Promise<string[]> {
    return this.scenes.deleteArtifactBatch(tx, sceneId, limit);
  }

  deleteVersionBatch(tx: Tx, sceneId: string, limit: number): Promise<number> {
    return this.scenes.deleteVersionBatch(tx, sceneId, limit);
  }

  releaseSourceImage(tx: Tx, sceneId: string): Promise<void> {
    return this.scenes.releaseSourceImage(tx, sceneId);
  }

  namesSourceImage(tx: Tx, assetId: string): Promise<boolean> {
    return this.scenes.namesSourceImage(tx, assetId);
  }

  markPurged(tx: Tx, sceneId: string, at: Date): Promise<void> {
    return this.scenes.markPurged(tx, sceneId, at);
  }
}
