import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookReplayBudget } from './webhook-limits';
import { WebhookMessageEntity } from './webhook-message.entity';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookRetention } from './webhook-retention';
import { SecretBox } from './webhook-secrets';
import { WebhookTargets } from './webhook-target';
import { WebhooksRepository } from './webhooks.repository';

/** Endpoints and the outbox, for every process that changes state worth announcing. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookMessageEntity, WebhookDeliveryEntity])],
  providers: [WebhooksRepository, SecretBox, WebhookTargets, WebhookOutbox, WebhookReplayBudget, WebhookEndpointsService],
  exports: [WebhookOutbox, WebhookEndpointsService, WebhooksRepository, SecretBox, WebhookTargets],
})
export class WebhooksModule {}

/** Delivery and retention, which only the worker runs. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookDispatcher, WebhookRetention],
  exports: [WebhookDispatcher, WebhookRetention],
})
export class WebhooksWorkerModule {}
