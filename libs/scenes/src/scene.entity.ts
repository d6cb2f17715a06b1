import { bigintAsNumber } from '@app/core';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `failed`: creation failed; such a scene is not active and is hidden like a deleted one. */
export type SceneStatus = 'generating' | 'ready' | 'failed';

@Entity('scenes')
export class SceneEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'external_ref', type: 'text', nullable: true })
  externalRef: string | null;

  /** Null once the scene is deleted and purged (`purgedAt`): the purge erases it. */
  @Column({ type: 'text', nullable: true })
  prompt: string | null;

  @Column({ name: 'source_asset_id', type: 'text', nullable: true })
  sourceAssetId: string | null;

  @Column('text')
  status: SceneStatus;

  /** The latest version that exists; null until creation succeeds. */
  @Column({ name: 'current_version', type: 'integer', nullable: true })
  currentVersion: number | null;

  @Column({ name: 'creating_operation_id', type: 'text' })
  creatingOperationId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** A tombstone: a deleted scene stays so that late work can see it must not bring it back. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  /**
   * When the purge (ScenePurge) erased what the deleted scene held: its versions and files, its
   * prompt, externalRef and source image. The row left is an identifier tombstone.
   */
  @Column({ name: 'purged_at', type: 'timestamptz', nullable: true })
  purgedAt?: Date | null;
}

@Entity('scene_versions')
export class SceneVersionEntity {
  @PrimaryColumn({ name: 'scene_id', type: 'text' })
  sceneId: string;

  @PrimaryColumn('integer')
  version: number;

  @Column({ name: 'operation_id', type: 'text' })
  operationId: string;

  /** The scene's view (a procedural spec, or a provider scene's environment and presets). */
  @Column('jsonb')
  spec: Record<string, unknown>;

  /** The generator that made it (`procedural`, `worldlabs`, `meshy`, `http`). */
  @Column('text')
  generator: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

export type SceneArtifactKind = 'mesh' | 'splat' | 'splat-preview' | 'collider' | 'panorama' | 'thumbnail';

/** One file of a version, stored in the blob store; never returned by the partner API. */
@Entity('scene_artifacts')
export class SceneArtifactEntity {
  @PrimaryColumn({ name: 'scene_id', type: 'text' })
  sceneId: string;

  @PrimaryColumn('integer')
  version: number;

  @PrimaryColumn('text')
  kind: SceneArtifactKind;

  @Column({ name: 'blob_key', type: 'text' })
  blobKey: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  bytes: number;

  @Column('text')
  sha256: string;
}
