import { Column, Entity, PrimaryColumn } from 'typeorm';
import { WebhookEventType } from './webhook-events';

export type WebhookDisabledReason = 'disabled_by_partner' | 'failing';

/** A partner's webhook endpoint. Deleted ones stay (`deletedAt`) until retention removes them. */
@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column('text')
  url: string;

  /** A test organization's endpoint may target http://localhost:<port>; fixed at creation. */
  @Column({ name: 'allow_loopback', type: 'boolean' })
  allowLoopback: boolean;

  @Column({ type: 'text', array: true })
  events: WebhookEventType[];

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: WebhookDisabledReason | null;

  /** The signing secret, sealed with the key in config (webhook-secrets.ts). */
  @Column({ name: 'secret_sealed', type: 'text' })
  secretSealed: string;

  /** The secret before the last rotation, still valid until `previousSecretExpiresAt`. */
  @Column({ name: 'previous_secret_sealed', type: 'text', nullable: true })
  previousSecretSealed: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  /** Since when every attempt failed; the endpoint is disabled once this is old enough. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt?: Date | null;
}
