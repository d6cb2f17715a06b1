import { Tx } from '@app/core';
import { SceneEntity, SceneStore } from '@app/scenes';
import { Injectable } from '@nestjs/common';
import { OperationEntity } from './operation.entity';
import { OperationsRepository, VisibleOperation } from './operations.repository';

/**
 * The lock order of docs/architecture.md ("Lock order") as the one way to take these locks: a
 * transaction that writes a scene and its operation locks the scene's row first, then the
 * operation's. The other order deadlocked a cancel against a concurrent deletion of the same
 * scene (the deletion locks the scene, then ends its operations). Every writer of an operation
 * that may race a deletion — the worker's commit and failure, a revert's commit, a cancel — takes
 * its locks here; nothing else locks an operation's row while it holds, or before it takes, its
 * scene's.
 */
@Injectable()
export class OperationLocks {
  constructor(
    private readonly scenes: SceneStore,
    private readonly operations: OperationsRepository,
  ) {}

  /** The scene's row, then the operation's: a commit of what the operation made. Either may be gone (null). */
  async lockSceneThenOperation(
    tx: Tx,
    sceneId: string,
    operationId: string,
  ): Promise<{ scene: SceneEntity | null; operation: OperationEntity | null }> {
    const scene = await this.scenes.lockById(tx, sceneId);
    const operation = await this.operations.lockById(tx, operationId);
    return { scene, operation };
  }

  /**
   * An organization's visible operation, locked after its scene's row (a cancel); null where
   * `findVisible` would be null. The scene is found by an unlocked read first: an operation never
   * changes scenes.
   */
  async lockSceneThenVisibleOperation(tx: Tx, organizationId: string, operationId: string): Promise<VisibleOperation | null> {
    const sceneId = await this.operations.sceneOf(tx, organizationId, operationId);
    if (!sceneId) return null;
    await this.scenes.lockById(tx, sceneId);
    return this.operations.lockVisible(tx, organizationId, operationId);
  }

  /** The scene's row, before a statement that writes its operation's row without reading it first (a failure). */
  async lockSceneBeforeOperation(tx: Tx, sceneId: string): Promise<void> {
    await this.scenes.lockById(tx, sceneId);
  }
}
