import { Module } from '@nestjs/common';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookReplayBudget } from './webhook-limits';
import { WebhookOutbox } from './webhook-outbox';
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
