import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';
import { AlongsideRows, PurgeCandidate, ScenesRepository } from './scenes.repository';

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

  transaction<T>(fn: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.scenes.transaction(fn);
  }

  insertWith(tx: EntityManager, scene: SceneEntity, alongside: AlongsideRows): Promise<void> {
    return this.scenes.insertWith(tx, scene, alongside);
  }

  findById(id: string): Promise<SceneEntity | null> {
    return this.scenes.findById(id);
  }

  lockById(tx: EntityManager, id: string): Promise<SceneEntity | null> {
    return this.scenes.lockById(tx, id);
  }

  lockActive(tx: EntityManager, organizationId: string, id: string): Promise<SceneEntity | null> {
    return this.scenes.lockActive(tx, organizationId, id);
  }

  touch(tx: EntityManager, id: string, at: Date): Promise<void> {
    return this.scenes.touch(tx, id, at);
  }

  markReady(tx: EntityManager, id: string, version: number, at: Date): Promise<void> {
    return this.scenes.markReady(tx, id, version, at);
  }

  markCreationFailed(tx: EntityManager, id: string, at: Date): Promise<void> {
    return this.scenes.markCreationFailed(tx, id, at);
  }

  insertVersion(tx: EntityManager, v: SceneVersionEntity): Promise<boolean> {
    return this.scenes.insertVersion(tx, v);
  }

  insertArtifact(tx: EntityManager, a: SceneArtifactEntity): Promise<void> {
    return this.scenes.insertArtifact(tx, a);
  }

  artifactsOf(sceneId: string, version: number, tx?: EntityManager): Promise<SceneArtifactEntity[]> {
    return this.scenes.artifactsOf(sceneId, version, tx);
  }

  findVersion(sceneId: string, version: number, tx?: EntityManager): Promise<SceneVersionEntity | null> {
    return this.scenes.findVersion(sceneId, version, tx);
  }

  lockNextToPurge(tx: EntityManager): Promise<PurgeCandidate | null> {
    return this.scenes.lockNextToPurge(tx);
  }

  deleteArtifactBatch(tx: EntityManager, sceneId: string, limit: number): Promise<string[]> {
    return this.scenes.deleteArtifactBatch(tx, sceneId, limit);
  }

  deleteVersionBatch(tx: EntityManager, sceneId: string, limit: number): Promise<number> {
    return this.scenes.deleteVersionBatch(tx, sceneId, limit);
  }

  releaseSourceImage(tx: EntityManager, sceneId: string): Promise<void> {
    return this.scenes.releaseSourceImage(tx, sceneId);
  }

  namesSourceImage(tx: EntityManager, assetId: string): Promise<boolean> {
    return this.scenes.namesSourceImage(tx, assetId);
  }

  markPurged(tx: EntityManager, sceneId: string, at: Date): Promise<void> {
    return this.scenes.markPurged(tx, sceneId, at);
  }
}
