export * from './dto/webhook-endpoint.dto';
export * from './webhook-dispatcher';
export * from './webhook-endpoints.service';
export * from './webhook-events';
export * from './webhook-outbox';
export * from './webhook-secrets';
export * from './webhook-target';
export * from './webhooks.module';
