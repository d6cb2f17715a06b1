import { DomainError, IdempotencyKey, JsonBodyGuard, ParseIdPipe } from '@app/core';
import { Principal } from '@app/organizations';
import { CreateSceneDto, FindSceneQuery, SceneResponse, ScenesService, SceneIdPrefix } from '@app/scenes';
import { OperationAcceptedResponse, SceneOperationsService } from '@app/operations';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { acceptedOperation } from '../idempotency/accepted-operation';
import { ApiIdempotencyKey, IdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator';
import { ApiIdParam } from '../openapi/api-id-param.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

const SCENE_ID = new ParseIdPipe(SceneIdPrefix.Scene);

@ApiTags('Scenes')
@Controller('v1/scenes')
export class ScenesController {
  constructor(
    private readonly scenes: ScenesService,
    private readonly sceneOperations: SceneOperationsService,
  ) {}

  @Post()
  @HttpCode(202)
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    summary: 'Create a scene',
    description:
      'Accepts a scene for asynchronous generation and returns the operation to poll. Idempotent per organization for 24 hours: ' +
      'the same Idempotency-Key with the same body replays the first response with `Idempotent-Replayed: true`; with another body it is ' +
      '`422 idempotency_key_reused`; while the first request is still running it is `409 idempotency_request_in_progress`. ' +
      'Refused requests (4xx) do not use up their key.',
  })
  @ApiIdempotencyKey()
  @ApiAcceptedResponse({
    type: OperationAcceptedResponse,
    headers: {
      Location: { description: '/v1/operations/{operationId}', schema: { type: 'string' } },
      'Idempotent-Replayed': { description: '`true` when this is a replay of the first response.', schema: { type: 'string' } },
    },
  })
  @ApiProblems({
    400: '`invalid_json`, `idempotency_key_missing` or `idempotency_key_invalid`.',
    409: '`external_ref_conflict` or `idempotency_request_in_progress`.',
    413: 'Body over 64 KiB (`payload_too_large`).',
    415: 'Not application/json (`unsupported_media_type`).',
    422: '`validation_failed`, `idempotency_key_reused`, `source_asset_not_found`, `source_image_too_small` or `source_image_aspect_ratio`.',
    429:
      '`rate_limited`; `quota_exceeded` when the organization has started its `generationsPerDay` for today (UTC; `Retry-After`: seconds to midnight UTC); ' +
      '`max_waiting_generations_exceeded` when it already has `maxWaitingGenerations` generations waiting to start (`Retry-After`: 10). ' +
      'Nothing is created and the Idempotency-Key stays unused.',
  })
  async create(
    @IdempotencyKeyHeader() key: IdempotencyKey,
    @Body() dto: CreateSceneDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperationAcceptedResponse> {
    return acceptedOperation(res, await this.sceneOperations.create(principal.organizationId, key, dto));
  }

  @Get()
  @ApiOperation({
    summary: 'Find a scene by externalRef',
    description: "Exact lookup among the organization's active scenes; not a list or a search.",
  })
  @ApiOkResponse({ type: SceneResponse })
  @ApiProblems({ 404: 'No active scene has this externalRef (`not_found`).', 422: 'externalRef missing or empty (`validation_failed`).' })
  async find(@Query() query: FindSceneQuery, @CurrentPrincipal() principal: Principal): Promise<SceneResponse> {
    const scene = await this.scenes.findByExternalRef(principal.organizationId, query.externalRef);
    if (!scene) throw DomainError.notFound();
    return scene;
  }

  @Get(':sceneId')
  @ApiOperation({ summary: 'Get a scene' })
  @ApiIdParam('sceneId', SceneIdPrefix.Scene)
  @ApiOkResponse({ type: SceneResponse })
  @ApiProblems({ 400: '`invalid_id`.', 404: 'Unknown, deleted, failed or not yours (`not_found`).' })
  async get(@Param('sceneId', SCENE_ID) id: string, @CurrentPrincipal() principal: Principal): Promise<SceneResponse> {
    const scene = await this.scenes.get(principal.organizationId, id);
    if (!scene) throw DomainError.notFound();
    return scene;
  }

  @Delete(':sceneId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a scene',
    description:
      "204 for every syntactically valid id (own, unknown, another organization's, already deleted). In any state (generating, ready, " +
      'a failed or cancelled creation). At once: the scene is gone from every endpoint, its active embed sessions are revoked, and no ' +
      'running generation brings it back. Within minutes its files, prompt, externalRef, edit instructions and source image (unless ' +
      'another scene still uses it) are erased.',
  })
  @ApiIdParam('sceneId', SceneIdPrefix.Scene)
  @ApiNoContentResponse({ description: 'Deleted, or nothing to delete.' })
  @ApiProblems({ 400: '`invalid_id`.' })
  async delete(@Param('sceneId', SCENE_ID) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.scenes.delete(principal.organizationId, id);
  }
}
