import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookMessageEntity } from './webhook-message.entity';
import { WebhooksRepository } from './webhooks.repository';

/**
 * The webhooks' repository, shared by this lib's own modules only: index.ts does not export it and
 * WebhooksModule does not re-export it, so another lib asks a service (WebhookOutbox.emit).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookMessageEntity, WebhookDeliveryEntity])],
  providers: [WebhooksRepository],
  exports: [WebhooksRepository],
})
export class WebhooksDataModule {}
