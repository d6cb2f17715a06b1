import { IdGenerator } from '@app/core';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WebhookEventType } from './webhook-events';
import { WebhooksRepository } from './webhooks.repository';
import { WebhookIdPrefix } from './webhooks.ids';

/**
 * Where state changes announce themselves. `emit` writes the event into the outbox inside the
 * caller's transaction: it commits with the change or not at all, so no event is lost to a crash
 * between the two, and none is sent for a change that rolled back. The worker's dispatcher
 * delivers it later (WebhookDispatcher).
 */
@Injectable()
export class WebhookOutbox {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly ids: IdGenerator,
  ) {}

  /** Returns how many endpoints will receive it (0: nobody listens, nothing was written). */
  emit(tx: EntityManager, organizationId: string, type: WebhookEventType, data: Record<string, unknown>, at: Date): Promise<number> {
    const body = { type, timestamp: at.toISOString(), data };
    return this.webhooks.insertMessage(tx, this.ids.generate(WebhookIdPrefix.Message), organizationId, body, at);
  }
}
