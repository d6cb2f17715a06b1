import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One attempt's outcome, kept on its delivery. `statusCode` null: no answer (refused, timeout, network). */
export interface WebhookAttempt {
  attemptedAt: string;
  statusCode: number | null;
  /** Our word for what went wrong, never the receiver's body: `http_status`, `timeout`, `connection_failed`, `target_not_allowed`. */
  error: string | null;
  durationMs: number;
}

/** One message to one endpoint, with its attempts. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @PrimaryColumn({ name: 'message_id', type: 'text' })
  messageId: string;

  @Column('text')
  status: WebhookDeliveryStatus;

  /** Every attempt made, also those the log no longer keeps. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** The newest attempts, oldest first (WEBHOOK_LIMITS.attemptsPerDelivery). */
  @Column({ name: 'attempts_log', type: 'jsonb', default: () => `'[]'` })
  attemptsLog: WebhookAttempt[];

  /** When a pending delivery is due (or its claim's lease ends); meaningless once it ended. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /**
   * A pending delivery of a disabled endpoint: out of the index the dispatcher claims from, so
   * a disabled endpoint's backlog costs no claim anything. Set with the endpoint's `enabled`.
   */
  @Column({ type: 'boolean', default: false })
  parked: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
