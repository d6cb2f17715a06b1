import { Module } from '@nestjs/common';
import { WebhooksRepository } from './webhooks.repository';

/**
 * The webhooks' repository, shared by this lib's own modules only: index.ts does not export it and
 * WebhooksModule does not re-export it, so another lib asks a service (WebhookOutbox.emit).
 */
@Module({ providers: [WebhooksRepository], exports: [WebhooksRepository] })
export class WebhooksDataModule {}
