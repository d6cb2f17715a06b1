import { OperationEntity } from '@app/operations/operation.entity';
import { newOperation } from '@app/operations/scene-operations.service';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from '@app/scenes/scene.entity';
import { ScenesRepository } from '@app/scenes/scenes.repository';
import { createHash, randomUUID } from 'node:crypto';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/**
 * Scenes these examples make, each with its creating operation: `ready` goes through a whole life
 * (ready with a version and its files, edited, deleted, purged); `failing` is a creation that fails.
 */
const ids = {
  ready: `scn_q_${randomUUID()}`,
  readyOp: `op_q_${randomUUID()}`,
  readyRef: `queries-${randomUUID()}`,
  failing: `scn_q_${randomUUID()}`,
  failingOp: `op_q_${randomUUID()}`,
  /** A source image no scene names. */
  image: `img_q_${randomUUID()}`,
};

/** A scene and its creating operation as SceneOperationsService.create builds them (newOperation). */
function creation(f: Fixtures, sceneId: string, opId: string, externalRef: string | null): [SceneEntity, OperationEntity] {
  const scene: SceneEntity = {
    id: sceneId,
    organizationId: f.organizationId,
    externalRef,
    prompt: 'A lighthouse on a cliff',
    sourceAssetId: null,
    status: 'generating',
    currentVersion: null,
    creatingOperationId: opId,
    createdAt: f.now,
    updatedAt: f.now,
    deletedAt: null,
  };
  const op = newOperation(opId, f.organizationId, sceneId, 'scene.create', null, f.now);
  return [scene, op];
}

/** A version's file as the generation processor records it. */
function artifact(kind: 'mesh' | 'thumbnail', contentType: string, extension: string): SceneArtifactEntity {
  return {
    sceneId: ids.ready,
    version: 1,
    kind,
    blobKey: `scenes/${ids.ready}/v1/${kind}.${extension}`,
    contentType,
    bytes: 1024,
    sha256: createHash('sha256').update(kind).digest('hex'),
  };
}

export const scenesExamples: RepositoryExamples<unknown>[] = [
  examplesOf<ScenesRepository>({
    type: ScenesRepository,
    make: (db) => new ScenesRepository(db),
    calls: {
      transaction: (r) => r.transaction(async () => undefined),
      insertWith: async (r, tx, f) => {
        for (const [scene, op] of [creation(f, ids.ready, ids.readyOp, ids.readyRef), creation(f, ids.failing, ids.failingOp, null)]) {
          await r.insertWith(tx, scene, [{ entity: OperationEntity, value: { ...op } }]);
        }
      },
      markCreationFailed: (r, tx, f) => r.markCreationFailed(tx, ids.failing, f.now),
      insertVersion: (r, tx, f) => {
        const v: SceneVersionEntity = {
          sceneId: ids.ready,
          version: 1,
          operationId: ids.readyOp,
          generator: 'procedural',
          spec: { environment: 'coast', objects: [{ kind: 'lighthouse' }] },
          createdAt: f.now,
        };
        return r.insertVersion(tx, v);
      },
      insertArtifact: async (r, tx) => {
        await r.insertArtifact(tx, artifact('mesh', 'model/gltf-binary', 'glb'));
        await r.insertArtifact(tx, artifact('thumbnail', 'image/png', 'png'));
      },
      markReady: (r, tx, f) => r.markReady(tx, ids.ready, 1, f.now),
      findActive: (r, _tx, f) => r.findActive(f.organizationId, ids.ready),
      findActiveByExternalRef: (r, _tx, f) => r.findActiveByExternalRef(f.organizationId, ids.readyRef),
      // An edit's start: the scene locked, then touched (scene-operations.service.ts).
      lockActive: (r, tx, f) => r.lockActive(tx, f.organizationId, ids.ready),
      touch: (r, tx, f) => r.touch(tx, ids.ready, f.now),
      artifactsOf: (r) => r.artifactsOf(ids.ready, 1),
      findVersion: (r) => r.findVersion(ids.ready, 1),
      lockById: (r, tx) => r.lockById(tx, ids.ready),
      findById: (r) => r.findById(ids.ready),
      // The deletion (ScenesService.delete): the scene locked, then its tombstone.
      lockUndeleted: (r, tx, f) => r.lockUndeleted(tx, f.organizationId, ids.ready),
      markDeleted: (r, tx, f) => r.markDeleted(tx, ids.ready, f.now),
      // The purge (ScenePurge): its files, its versions, then what the scene row held.
      lockNextToPurge: (r, tx) => r.lockNextToPurge(tx),
      deleteArtifactBatch: (r, tx) => r.deleteArtifactBatch(tx, ids.ready, 100),
      deleteVersionBatch: (r, tx) => r.deleteVersionBatch(tx, ids.ready, 500),
      releaseSourceImage: (r, tx) => r.releaseSourceImage(tx, ids.ready),
      namesSourceImage: (r, tx) => r.namesSourceImage(tx, ids.image),
      markPurged: (r, tx, f) => r.markPurged(tx, ids.ready, f.now),
    },
  }),
];
