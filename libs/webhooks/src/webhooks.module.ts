import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookReplayBudget } from './webhook-limits';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookRetention } from './webhook-retention';
import { SecretBox } from './webhook-secrets';
import { WebhookTargets } from './webhook-target';
import { WebhooksRepository } from './webhooks.repository';

/** Endpoints and the outbox, for every process that changes state worth announcing. */
@Module({
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
