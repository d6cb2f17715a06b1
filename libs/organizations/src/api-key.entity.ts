import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  /** SHA-256 of the whole key, hex. The key itself is shown once and never stored. */
  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  /** The first characters of the key, enough for an operator to recognise it in a list. */
  @Column({ name: 'key_prefix', type: 'text' })
  keyPrefix: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
