import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookHealthRepository } from './webhook-health.repository';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookRetention } from './webhook-retention';
import { WebhooksDataModule } from './webhooks-data.module';
import { WebhooksModule } from './webhooks.module';

/** Delivery and retention, which only the worker runs. */
@Module({
  imports: [WebhooksModule, WebhooksDataModule],
  // WebhookMetrics: endpoint health and the dispatchers' lag on /metrics, the worker's alone.
  providers: [WebhookDispatcher, WebhookRetention, WebhookHealthRepository, WebhookMetrics],
  exports: [WebhookDispatcher, WebhookRetention],
})
export class WebhooksWorkerModule {}
