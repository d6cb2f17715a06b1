import { Column, Entity, PrimaryColumn } from 'typeorm';

export type OperationKind = 'scene.create' | 'scene.edit';
export type OperationStatus = 'processing' | 'succeeded' | 'failed';

@Entity('operations')
export class OperationEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'scene_id', type: 'text' })
  sceneId: string;

  @Column('text')
  kind: OperationKind;

  @Column('text')
  status: OperationStatus;

  /** The edit instruction, for `scene.edit`. */
  @Column({ type: 'text', nullable: true })
  instruction: string | null;

  /** The scene version produced, once succeeded. */
  @Column({ type: 'integer', nullable: true })
  version: number | null;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ name: 'error_retryable', type: 'boolean', nullable: true })
  errorRetryable: boolean | null;

  /** 0 to 1 while processing, by stage (inputs loaded, generated, stored). */
  @Column({ type: 'real', nullable: true })
  progress: number | null;

  /** Set once the job is known to be in the queue; the reconciler re-enqueues when it is not. */
  @Column({ name: 'enqueued_at', type: 'timestamptz', nullable: true })
  enqueuedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
