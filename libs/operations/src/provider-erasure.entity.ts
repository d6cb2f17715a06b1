import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { StoredProviderJob } from './operation.entity';

/** `pending`: to do (again) at `nextAttemptAt`; `done`: every object accounted for; `failed`: given up. */
export type ProviderErasureStatus = 'pending' | 'done' | 'failed';

/** One object the provider held for the job, and what the delete did (libs/generation `ProviderObjectErasure`). */
export interface StoredProviderObject {
  kind: string;
  id: string;
  outcome: 'deleted' | 'absent' | 'kept';
}

/**
 * The erasure at a provider of what one operation's job left there (its copies of the prompt,
 * the instructions, the source image and the result), once the operation's scene was purged:
 * what was asked, what the provider did, when. Ids and times only, no content: kept with the
 * scene's tombstone as the record that the deletion reached the provider (docs/operations.md,
 * "Data we keep").
 */
@Entity('provider_erasures')
export class ProviderErasureEntity {
  @PrimaryColumn({ name: 'operation_id', type: 'text' })
  operationId: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'scene_id', type: 'text' })
  sceneId: string;

  /** The generator that started the job: only it can reach the job's objects. */
  @Column('text')
  generator: string;

  /** The job as the operation recorded it (ids: the provider's job, world, media asset…). */
  @Column({ name: 'provider_job', type: 'jsonb' })
  providerJob: StoredProviderJob;

  @Column('text')
  status: ProviderErasureStatus;

  /** Deletes tried so far, each a call to the provider. */
  @Column('integer')
  attempts: number;

  /** When a worker may try next: the backoff after a failure, or a worker's lease while it tries. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  /** Why the last attempt did not finish: one of our codes, never the provider's words. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  /** What the provider held and what became of each, once done. */
  @Column({ type: 'jsonb', nullable: true })
  objects: StoredProviderObject[] | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When it was done, or given up. */
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
