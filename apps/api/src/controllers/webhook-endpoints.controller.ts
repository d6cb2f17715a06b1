import { JsonBodyGuard, ParseIdPipe } from '@app/core';
import { Principal } from '@app/organizations';
import {
  CreateWebhookEndpointDto,
  RotateWebhookSecretDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveriesQuery,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointsQuery,
  WebhookEndpointsService,
  WebhookEndpointWithSecretResponse,
  WEBHOOK_LIMITS,
  WebhookIdPrefix,
  WebhookTestResponse,
} from '@app/webhooks';
import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { TestOrganizationsOnlyGuard } from '../auth/test-organizations-only.guard';
import { ApiIdParam } from '../openapi/api-id-param.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

const ENDPOINT_ID = new ParseIdPipe(WebhookIdPrefix.Endpoint);
const NOT_FOUND = 'Unknown, deleted or not yours (`not_found`).';
const JSON_PROBLEMS = {
  400: '`invalid_json` or `invalid_id`.',
  413: 'Body over 64 KiB (`payload_too_large`).',
  415: 'Not application/json (`unsupported_media_type`).',
} as const;

@ApiTags('Webhook endpoints')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @HttpCode(201)
  @UseGuards(JsonBodyGuard)
  // The answer holds the signing secret.
  @Header('cache-control', 'private, no-store')
  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description:
      'Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The `secret` is returned ' +
      'by this call alone. At least once: deduplicate on `webhook-id`. Order is not guaranteed. ' +
      `An organization has at most ${WEBHOOK_LIMITS.endpointsPerOrganization} endpoints (deleted ones do not count), ` +
      'and no two with the same `url` and an event in common.',
  })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretResponse })
  @ApiProblems({
    ...JSON_PROBLEMS,
    409:
      `The organization already has ${WEBHOOK_LIMITS.endpointsPerOrganization} endpoints (\`limit_exceeded\`); delete one first. ` +
      'Or one of its endpoints, enabled or not, has this `url` and an event in common (`webhook_endpoint_conflict`, naming it in `webhookEndpointId`).',
    422: '`validation_failed` (a `url` that is not allowed has field code `not_allowed`).',
  })
  create(@Body() dto: CreateWebhookEndpointDto, @CurrentPrincipal() principal: Principal): Promise<WebhookEndpointWithSecretResponse> {
    return this.endpoints.create(principal, dto);
  }

  @Get()
  @ApiOperation({
    summary: "List the organization's webhook endpoints",
    description: 'Without secrets. By id, pages of `limit` (default 50); pass `nextCursor` as `after` for the next page.',
  })
  @ApiOkResponse({ type: WebhookEndpointListResponse })
  @ApiProblems({ 422: '`validation_failed` (`after`, `limit`).' })
  list(@Query() query: WebhookEndpointsQuery, @CurrentPrincipal() principal: Principal): Promise<WebhookEndpointListResponse> {
    return this.endpoints.list(principal.organizationId, query.after ?? null, query.limit);
  }

  @Get(':webhookEndpointId')
  @ApiOperation({ summary: 'Get a webhook endpoint', description: 'Without its secret.' })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiProblems({ 400: '`invalid_id`.', 404: NOT_FOUND })
  get(@Param('webhookEndpointId', ENDPOINT_ID) id: string, @CurrentPrincipal() principal: Principal): Promise<WebhookEndpointResponse> {
    return this.endpoints.get(principal.organizationId, id);
  }

  @Patch(':webhookEndpointId')
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description: '`url`, `events`, and `enabled` (false pauses deliveries, which wait; true resumes them and clears `disabledReason`).',
  })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiProblems({
    ...JSON_PROBLEMS,
    404: NOT_FOUND,
    409: 'Another endpoint of the organization has the resulting `url` and an event in common (`webhook_endpoint_conflict`, naming it in `webhookEndpointId`).',
    422: '`validation_failed`.',
  })
  update(
    @Param('webhookEndpointId', ENDPOINT_ID) id: string,
    @Body() dto: UpdateWebhookEndpointDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.update(principal, id, dto);
  }

  @Delete(':webhookEndpointId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description:
      "204 for every syntactically valid id (own, unknown, another organization's, already deleted). Pending deliveries are dropped.",
  })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiNoContentResponse({ description: 'Deleted, or nothing to delete.' })
  @ApiProblems({ 400: '`invalid_id`.' })
  async delete(@Param('webhookEndpointId', ENDPOINT_ID) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.endpoints.delete(principal.organizationId, id);
  }

  // AIP-136's custom method: the colon is part of the path, escaped for Express's router.
  @Post(':webhookEndpointId\\:rotate-secret')
  @HttpCode(200)
  @UseGuards(JsonBodyGuard)
  @Header('cache-control', 'private, no-store')
  @ApiOperation({
    summary: "Rotate an endpoint's signing secret",
    description:
      'Returns the new secret (this call alone). For `overlapSeconds` (default 86400) deliveries carry signatures by both the new and ' +
      'the previous secret, so a receiver can switch without losing one.',
  })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiOkResponse({ type: WebhookEndpointWithSecretResponse })
  @ApiProblems({ ...JSON_PROBLEMS, 404: NOT_FOUND, 422: '`validation_failed`.' })
  rotate(
    @Param('webhookEndpointId', ENDPOINT_ID) id: string,
    @Body() dto: RotateWebhookSecretDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WebhookEndpointWithSecretResponse> {
    return this.endpoints.rotateSecret(principal.organizationId, id, dto.overlapSeconds);
  }

  // Test mode (docs/api.md, "Testing your integration").
  @Post(':webhookEndpointId\\:test')
  @HttpCode(200)
  @UseGuards(TestOrganizationsOnlyGuard)
  @ApiOperation({
    summary: 'Send a signed test event now (test mode)',
    description:
      'Test organizations only. Sends `{"type": "webhook.test", "timestamp", "data": {"webhookEndpointId"}}`, signed and checked like ' +
      'every delivery, to the endpoint now (enabled or not), once, and answers with the attempt: the status code, or our word for ' +
      'what went wrong. Nothing is recorded or retried. No body. Counts against the replay budget ' +
      `(${WEBHOOK_LIMITS.replaysPerMinute} a minute).`,
  })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiOkResponse({ type: WebhookTestResponse })
  @ApiProblems({
    400: '`invalid_id`.',
    403: "A live organization's key (`test_mode_only`): test mode is for test organizations.",
    404: NOT_FOUND,
    429: '`rate_limited` (the replay budget), with `Retry-After`.',
  })
  test(@Param('webhookEndpointId', ENDPOINT_ID) id: string, @CurrentPrincipal() principal: Principal): Promise<WebhookTestResponse> {
    return this.endpoints.sendTest(principal.organizationId, id);
  }

  @Get(':webhookEndpointId/deliveries')
  @ApiOperation({ summary: "An endpoint's deliveries, newest first, with every attempt", description: 'Pages of `limit` (default 50).' })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiOkResponse({ type: WebhookDeliveryListResponse })
  @ApiProblems({ 400: '`invalid_id`.', 404: NOT_FOUND, 422: '`validation_failed` (`before`, `limit`).' })
  deliveries(
    @Param('webhookEndpointId', ENDPOINT_ID) id: string,
    @Query() query: WebhookDeliveriesQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WebhookDeliveryListResponse> {
    return this.endpoints.deliveries(principal.organizationId, id, query.before ?? null, query.limit);
  }

  @Post(':webhookEndpointId/deliveries/:messageId\\:replay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replay a delivery',
    description:
      'Makes it due now, whatever its state; it goes out with the same `webhook-id` and body. No body. ' +
      `At most ${WEBHOOK_LIMITS.replaysPerMinute} replays a minute per organization.`,
  })
  @ApiIdParam('webhookEndpointId', WebhookIdPrefix.Endpoint)
  @ApiIdParam('messageId', WebhookIdPrefix.Message)
  @ApiOkResponse({ type: WebhookDeliveryResponse })
  @ApiProblems({
    400: '`invalid_id`.',
    404: NOT_FOUND,
    429:
      `Rate limit of the organization exceeded, or its ${WEBHOOK_LIMITS.replaysPerMinute} replays a minute spent (\`rate_limited\`); ` +
      'carries `Retry-After`.',
  })
  replay(
    @Param('webhookEndpointId', ENDPOINT_ID) id: string,
    @Param('messageId', new ParseIdPipe(WebhookIdPrefix.Message)) messageId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WebhookDeliveryResponse> {
    return this.endpoints.replay(principal.organizationId, id, messageId);
  }
}
