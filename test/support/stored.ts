import { CameraPathEntity } from '@app/camera-paths/camera-path.entity';
import { EmbedSessionEntity } from '@app/embed-sessions/embed-session.entity';
import { ImageAssetEntity } from '@app/image-assets/image-asset.entity';
import { OperationEntity } from '@app/operations/operation.entity';
import { SceneEntity, SceneVersionEntity } from '@app/scenes/scene.entity';
import { ApiKeyEntity } from '@app/organizations/api-key.entity';
import { DataSource, In, IsNull } from 'typeorm';

/**
 * What the service stored, read through the libs' own entities, for tests that check state the
 * API does not show (an operation's queue bookkeeping, a revoked session's reason, rows left after
 * an erasure). Through the entities, a renamed column fails to compile here instead of a query
 * failing at run time, and no test repeats a table's column names.
 */
/** TypeORM refuses `undefined` in a where clause (it would match everything): leave those keys out. */
function defined<T extends object>(where: T): T {
  return Object.fromEntries(Object.entries(where).filter(([, v]) => v !== undefined)) as T;
}

export function stored(db: DataSource) {
  return {
    operation: (id: string) => db.getRepository(OperationEntity).findOneByOrFail({ id }),
    operations: (ids: string[]) => db.getRepository(OperationEntity).findBy({ id: In(ids) }),
    /** `admittedAt: null`: still waiting for its turn. */
    operationCount: ({
      id,
      admittedAt,
      ...where
    }: {
      organizationId?: string;
      id?: string[];
      status?: OperationEntity['status'];
      admittedAt?: null;
    }) =>
      db
        .getRepository(OperationEntity)
        .countBy(defined({ ...where, id: id && In(id), admittedAt: admittedAt === null ? IsNull() : undefined })),
    sceneCount: (organizationId: string) => db.getRepository(SceneEntity).countBy({ organizationId }),
    /** Puts a scene back in an earlier state, for refusals that depend on it. */
    setSceneState: async (id: string, state: Pick<SceneEntity, 'status' | 'currentVersion'>) => {
      await db.getRepository(SceneEntity).update({ id }, state);
    },
    sceneVersions: (sceneIds: string[]) => db.getRepository(SceneVersionEntity).findBy({ sceneId: In(sceneIds) }),
    sceneVersionCount: (sceneId: string, version?: number) => db.getRepository(SceneVersionEntity).countBy(defined({ sceneId, version })),
    embedSession: (id: string) => db.getRepository(EmbedSessionEntity).findOneByOrFail({ id }),
    embedSessions: (ids: string[]) => db.getRepository(EmbedSessionEntity).findBy({ id: In(ids) }),
    /** Moves a session's expiry, to make it lapse without waiting. */
    expireEmbedSession: async (id: string, at = new Date(Date.now() - 1000)) => {
      await db.getRepository(EmbedSessionEntity).update({ id }, { expiresAt: at });
    },
    imageAssetExists: (id: string) => db.getRepository(ImageAssetEntity).existsBy({ id }),
    imageAsset: (id: string) => db.getRepository(ImageAssetEntity).findOneBy({ id }),
    /** Revokes a key in PostgreSQL only, without the broadcast the CLI sends: what a cache must notice alone. */
    revokeApiKeySilently: async (id: string) => {
      await db.getRepository(ApiKeyEntity).update({ id }, { revokedAt: new Date() });
    },
    cameraPathCount: (sceneId: string) => db.getRepository(CameraPathEntity).countBy({ sceneId }),
  };
}
