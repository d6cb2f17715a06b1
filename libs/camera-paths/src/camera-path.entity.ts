import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CameraPathDocument, CameraPathKind } from '@scene-studio/camera-path';

/**
 * A camera path saved for a scene by a perform session: a take, an authored move or a view
 * (docs/camera-paths.md). The summary columns repeat what the list shows of the document, so a
 * list never reads documents (a take's is megabytes, stored out of line).
 */
@Entity('camera_paths')
export class CameraPathEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'scene_id', type: 'text' })
  sceneId: string;

  /** Fixed at creation. */
  @Column('text')
  kind: CameraPathKind;

  @Column('text')
  name: string;

  @Column('jsonb')
  document: CameraPathDocument;

  @Column({ name: 'duration_ms', type: 'double precision' })
  durationMs: number;

  @Column({ name: 'keyframe_count', type: 'integer' })
  keyframeCount: number;

  @Column({ name: 'sample_count', type: 'integer' })
  sampleCount: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A camera path without its document: what the list reads. */
export type CameraPathListed = Omit<CameraPathEntity, 'document'>;
