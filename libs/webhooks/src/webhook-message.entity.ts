import { Column, Entity, PrimaryColumn } from 'typeorm';
import { WebhookBody, WebhookEventType } from './webhook-events';

/** One event of the outbox, written in the transaction of the change it reports. */
@Entity('webhook_messages')
export class WebhookMessageEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column('text')
  type: WebhookEventType;

  /** The body exactly as first written: every retry sends the same bytes. */
  @Column('jsonb')
  payload: WebhookBody;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
