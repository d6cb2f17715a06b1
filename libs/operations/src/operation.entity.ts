import { Column, Entity, PrimaryColumn } from 'typeorm';

export type OperationKind = 'scene.create' | 'scene.edit';
export type OperationStatus = 'processing' | 'succeeded' | 'failed';
/**
 * Where a processing operation is: waiting for a worker, at the generator, fetching its files,
 * writing them. `cancelling`: ended for its partner (cancelled, or its scene deleted) while its
 * world is still being made; it holds its organization's slot until that work ends.
 */
export type OperationStage = 'queued' | 'generating' | 'downloading' | 'storing' | 'cancelling';

/** A job at a provider, as the generator described it (libs/generation `ProviderJob`). */
export interface StoredProviderJob {
  id: string;
  state?: Record<string, string | number | boolean | null>;
}

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

  /**
   * For a revert (a `scene.edit` that restores an earlier version, with no generator call): the
   * version it copies. Null for every other operation.
   */
  @Column({ name: 'revert_to', type: 'integer', nullable: true })
  revertTo: number | null;

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

  /** While processing; null once finished, or `cancelling` while an ended operation's work goes on. */
  @Column({ type: 'text', nullable: true })
  stage: OperationStage | null;

  /** The generator that took the operation (set with its job). */
  @Column({ type: 'text', nullable: true })
  generator: string | null;

  /** The job at the provider, persisted as soon as the provider accepted it. */
  @Column({ name: 'provider_job', type: 'jsonb', nullable: true })
  providerJob: StoredProviderJob | null;

  /** When the job was submitted; GENERATION_DEADLINE_SECONDS counts from here. */
  @Column({ name: 'submitted_at', type: 'timestamptz', nullable: true })
  submittedAt: Date | null;

  /** When the provider job was cancelled, or cancelling it attempted (after a cancel, a deadline, a deletion): done once. */
  @Column({ name: 'provider_cancelled_at', type: 'timestamptz', nullable: true })
  providerCancelledAt: Date | null;

  /** Set once the job is known to be in the queue; the reconciler re-enqueues when it is not. */
  @Column({ name: 'enqueued_at', type: 'timestamptz', nullable: true })
  enqueuedAt: Date | null;

  /** When admission let it on the queue (its organization's turn came); null while it waits. */
  @Column({ name: 'admitted_at', type: 'timestamptz', nullable: true })
  admittedAt?: Date | null;

  /** When a worker first started it. */
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt?: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** Set by a deleted scene's purge (its deletion time): what retention finds its operations by. */
  @Column({ name: 'scene_deleted_at', type: 'timestamptz', nullable: true })
  sceneDeletedAt?: Date | null;
}
