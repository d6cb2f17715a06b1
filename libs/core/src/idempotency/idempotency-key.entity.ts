import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An Idempotency-Key of an organization and the answer it gets replayed, until it expires. */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @PrimaryColumn('uuid')
  key: string;

  /** The request's fingerprint: the same key with another body is refused. */
  @Column('text')
  fingerprint: string;

  /** What the first request answered, replayed as is. */
  @Column('jsonb')
  result: object;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
