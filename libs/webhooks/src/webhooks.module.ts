import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookHealthRepository } from './webhook-health.repository';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookReplayBudget } from './webhook-limits';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookRetention } from './webhook-retention';
import { SecretBox } from './webhook-secrets';
import { WebhookTargets } from './webhook-target';
import { WebhookSender } from './webhook-sender';
import { WebhooksDataModule } from './webhooks-data.module';

/** Endpoints and the outbox, for every process that changes state worth announcing. */
@Module({
  imports: [WebhooksDataModule],
  providers: [SecretBox, WebhookTargets, WebhookSender, WebhookOutbox, WebhookReplayBudget, WebhookEndpointsService],
  exports: [WebhookOutbox, WebhookEndpointsService, SecretBox, WebhookTargets, WebhookSender],
})
export class WebhooksModule {}

/** Delivery and retention, which only the worker runs. */
@Module({
  imports: [WebhooksModule, WebhooksDataModule],
  // WebhookMetrics: endpoint health and the dispatchers' lag on /metrics, the worker's alone.
  providers: [WebhookDispatcher, WebhookRetention, WebhookHealthRepository, WebhookMetrics],
  exports: [WebhookDispatcher, WebhookRetention],
})
export class WebhooksWorkerModule {}
