import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { idPattern } from '@app/core';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events';
import { WebhookIdPrefix } from '../webhooks.ids';
import { WEBHOOK_LIMITS } from '../webhook-limits';

const URL_DOC =
  'Where deliveries are POSTed. Live organizations: `https://` on a public host (private, loopback, link-local and metadata ' +
  'addresses are refused, also after DNS resolution); test organizations may also use `http://localhost:<port>`. Redirects are not followed.';

export class CreateWebhookEndpointDto {
  @ApiProperty({ example: 'https://hooks.acme.example/scene-studio', maxLength: 2048, description: URL_DOC })
  @IsDefined({ message: 'url is required' })
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { context: { code: 'too_long' } })
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['operation.succeeded', 'operation.failed'] })
  @IsDefined({ message: 'events is required' })
  @IsArray({ message: 'events must be an array of event types' })
  @ArrayNotEmpty({ message: 'events must name at least one event type' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique({ message: 'events must not repeat an event type' })
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  events: WebhookEventType[];
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ maxLength: 2048, description: URL_DOC })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { context: { code: 'too_long' } })
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  @IsOptional()
  @IsArray({ message: 'events must be an array of event types' })
  @ArrayNotEmpty({ message: 'events must name at least one event type' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique({ message: 'events must not repeat an event type' })
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  events?: WebhookEventType[];

  @ApiPropertyOptional({ description: 'false pauses deliveries (they wait); true resumes them and clears `disabledReason`.' })
  @IsOptional()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: 604800,
    default: 86400,
    description:
      'How long the previous secret keeps signing too (both signatures are sent), so receivers can switch without losing a delivery.',
  })
  @IsOptional()
  @IsInt({ message: 'overlapSeconds must be an integer' })
  @Min(0, { context: { code: 'too_small' } })
  @Max(604800, { context: { code: 'too_large' } })
  overlapSeconds?: number;
}

export class WebhookEndpointResponse {
  @ApiProperty({ example: 'whe_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  webhookEndpointId: string;

  @ApiProperty({ example: 'https://hooks.acme.example/scene-studio' })
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  events: WebhookEventType[];

  @ApiProperty()
  enabled: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['disabled_by_partner', 'failing'],
    description: '`failing`: no delivery succeeded for WEBHOOK_DISABLE_AFTER_SECONDS (5 days by default) while deliveries kept failing.',
  })
  disabledReason: 'disabled_by_partner' | 'failing' | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret (Standard Webhooks). Returned by this call alone; store it in your secret store.',
  })
  secret: string;
}

export class WebhookEndpointListResponse {
  @ApiProperty({ type: WebhookEndpointResponse, isArray: true, description: 'By `webhookEndpointId`, ascending.' })
  items: WebhookEndpointResponse[];

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `after` for the next page; null on the last page.' })
  nextCursor: string | null;
}

/** `limit`, shared by the lists: a page size of 1 to 100, 50 when not given. */
class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: WEBHOOK_LIMITS.page.max, default: WEBHOOK_LIMITS.page.default })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { context: { code: 'too_small' } })
  @Max(WEBHOOK_LIMITS.page.max, { context: { code: 'too_large' } })
  limit?: number;
}

export class WebhookEndpointsQuery extends PageQuery {
  @ApiPropertyOptional({
    example: 'whe_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    pattern: idPattern(WebhookIdPrefix.Endpoint),
    description: 'The previous page’s `nextCursor`: endpoints after this one.',
  })
  @IsOptional()
  @IsString({ message: 'after must be given once' })
  @Matches(new RegExp(idPattern(WebhookIdPrefix.Endpoint)), {
    message: 'after must be a webhook endpoint id (whe_…)',
    context: { code: 'invalid_format' },
  })
  after?: string;
}

export class WebhookAttemptResponse {
  @ApiProperty({ format: 'date-time' })
  attemptedAt: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The receiver’s HTTP status; null when no answer came.' })
  statusCode: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['http_status', 'timeout', 'connection_failed', 'target_not_allowed'],
    description: 'null for a 2xx.',
  })
  error: string | null;

  @ApiProperty()
  durationMs: number;
}

/** What `POST /v1/webhook-endpoints/{id}:test` answers: the one attempt it made, now. */
export class WebhookTestResponse {
  @ApiProperty({
    example: 'msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    pattern: idPattern(WebhookIdPrefix.Message),
    description: 'The `webhook-id` the test event was sent with (a new one each time).',
  })
  messageId: string;

  @ApiProperty({ enum: ['webhook.test'], description: 'The event type in the body sent.' })
  type: 'webhook.test';

  @ApiProperty({ description: 'The endpoint answered 2xx.' })
  delivered: boolean;

  @ApiProperty({ type: WebhookAttemptResponse })
  attempt: WebhookAttemptResponse;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE', description: 'The `webhook-id` header of every attempt: deduplicate on it.' })
  messageId: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  type: WebhookEventType;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status: 'pending' | 'succeeded' | 'failed';

  @ApiProperty({
    type: 'integer',
    description: `Every attempt made, replays included; \`attempts\` lists the newest ${WEBHOOK_LIMITS.attemptsPerDelivery} of them.`,
  })
  attemptCount: number;

  @ApiProperty({
    type: WebhookAttemptResponse,
    isArray: true,
    description: `The newest ${WEBHOOK_LIMITS.attemptsPerDelivery} attempts, oldest first.`,
  })
  attempts: WebhookAttemptResponse[];

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  nextAttemptAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  completedAt: string | null;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: WebhookDeliveryResponse, isArray: true })
  items: WebhookDeliveryResponse[];

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `before` for the next (older) page; null on the last page.' })
  nextCursor: string | null;
}

export class WebhookDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({
    example: 'msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    pattern: idPattern(WebhookIdPrefix.Message),
    description: 'The previous page’s `nextCursor`: deliveries older than this message.',
  })
  @IsOptional()
  @IsString({ message: 'before must be given once' })
  @Matches(new RegExp(idPattern(WebhookIdPrefix.Message)), {
    message: 'before must be a message id (msg_…)',
    context: { code: 'invalid_format' },
  })
  before?: string;
}
