import { Clock } from '@app/core';
import { Injectable } from '@nestjs/common';
import { OperationFailures } from './operation-error';
import { OperationOutcomes } from './operation-outcomes';
import { OperationEntity } from './operation.entity';
import { SceneStore } from '@app/scenes';
import { OperationLocks } from './operation-locks';

/**
 * The worker's half of a revert (a `scene.edit` operation with `revertTo`): the scene's next
 * version is the chosen one again — the same spec, and the same stored files (the new version's
 * artifacts name the same blobs, so their digests are equal by construction and nothing is
 * copied; they go with the scene when it is deleted). No generator is called.
 *
 * One transaction, conditional like every commit: the scene is locked before the operation (the
 * lock order of docs/architecture.md), a finished operation writes nothing, and the version
 * number is read under the scene's lock, so a revert landing next to an edit takes the next free
 * number and the edit, finding the version moved, starts over from it.
 */
@Injectable()
export class SceneReverts {
  constructor(
    private readonly scenes: SceneStore,
    private readonly outcomes: OperationOutcomes,
    private readonly clock: Clock,
    private readonly locks: OperationLocks,
  ) {}

  commit(op: OperationEntity): Promise<unknown> {
    const target = op.revertTo;
    if (target === null) throw new Error(`operation ${op.id} is not a revert`);
    return this.scenes.transaction(async (tx) => {
      const { scene, operation: current } = await this.locks.lockSceneThenOperation(tx, op.sceneId, op.id);
      if (!current || current.status !== 'processing') return { skipped: 'already finished' };
      const now = this.clock.now();
      if (!scene || scene.deletedAt) {
        await this.outcomes.failed(tx, op.id, OperationFailures.sceneDeleted(), now);
        return { discarded: 'scene deleted' };
      }
      const source = await this.scenes.findVersion(scene.id, target, tx);
      const files = await this.scenes.artifactsOf(scene.id, target, tx);
      // Versions are only ever removed with their scene, and the request checked the number:
      // an error here is a bug, left to the job's attempts and then recorded as a failure.
      if (!source || files.length === 0 || scene.currentVersion === null) throw new Error(`version ${target} of ${scene.id} is missing`);
      const version = scene.currentVersion + 1;
      const inserted = await this.scenes.insertVersion(tx, {
        sceneId: scene.id,
        version,
        operationId: op.id,
        generator: source.generator,
        spec: source.spec,
        createdAt: now,
      });
      if (inserted) {
        for (const file of files) await this.scenes.insertArtifact(tx, { ...file, version });
      }
      await this.scenes.markReady(tx, scene.id, version, now);
      await this.outcomes.succeeded(tx, op.id, version, now);
      return { version, revertedTo: target };
    });
  }
}
