/** The event types, in the order docs/api.md ("Events") lists them. */
export const WEBHOOK_EVENT_TYPES = ['operation.succeeded', 'operation.failed', 'scene.deleted', 'embed_session.ended'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `embed_session.ended`'s reasons. */
export type EmbedSessionEndReason = 'revoked' | 'expired' | 'scene_deleted';

/** What a receiver gets as the body of every delivery of one message; frozen when the event happens. */
export interface WebhookBody {
  type: WebhookEventType;
  /** ISO 8601: when the event happened (not when it was delivered). */
  timestamp: string;
  data: Record<string, unknown>;
}
