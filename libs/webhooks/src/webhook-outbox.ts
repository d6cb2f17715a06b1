import { IdGenerator, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
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
  emit(tx: Tx, organizationId: string, type: WebhookEventType, data: Record<string, unknown>, at: Date): Promise<number> {
    const body = { type, timestamp: at.toISOString(), data };
    return this.webhooks.insertMessage(tx, this.ids.generate(WebhookIdPrefix.Message), organizationId, body, at);
  }

  /**
   * `emit` for many events of one organization and type (one message each), written together; when
   * no endpoint listens, nothing is built or sent (a scene's deletion may end thousands of sessions,
   * and its transaction is what every open studio of the scene waits for).
   */
  async emitEach(tx: Tx, organizationId: string, type: WebhookEventType, data: Array<Record<string, unknown>>, at: Date): Promise<number> {
    if (data.length === 0 || !(await this.webhooks.anyListener(tx, organizationId, type))) return 0;
    const timestamp = at.toISOString();
    const messages = data.map((d) => ({ id: this.ids.generate(WebhookIdPrefix.Message), body: { type, timestamp, data: d } }));
    return this.webhooks.insertMessages(tx, organizationId, type, messages, at);
  }
}
