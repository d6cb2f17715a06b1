import { DomainError, ParseIdPipe } from '@app/core';
import { Principal } from '@app/organizations';
import { OperationIdPrefix, OperationResponse, OperationsService, SceneJobScheduler } from '@app/operations';
import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiIdParam } from '../openapi/api-id-param.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

const OPERATION_ID = new ParseIdPipe(OperationIdPrefix.Operation);

@ApiTags('Operations')
@Controller('v1/operations')
export class OperationsController {
  constructor(
    private readonly operations: OperationsService,
    private readonly jobs: SceneJobScheduler,
  ) {}

  @Get(':operationId')
  @ApiOperation({
    summary: 'Poll an operation',
    description:
      "`processing` carries `Retry-After` (whole seconds, 1 to 10, from the queue's current depth); `succeeded` carries the scene " +
      'and its version; `failed` a safe structured error. Always `Cache-Control: no-store`.',
  })
  @ApiIdParam('operationId', OperationIdPrefix.Operation)
  @ApiOkResponse({
    type: OperationResponse,
    headers: {
      'Retry-After': { description: 'Only while processing: seconds to wait before polling again.', schema: { type: 'integer' } },
    },
  })
  @ApiProblems({ 400: '`invalid_id`.', 404: 'Unknown, not yours, or its scene was deleted (`not_found`).' })
  async get(
    @Param('operationId', OPERATION_ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperationResponse> {
    return this.answer(res, principal.organizationId, await this.operations.get(principal.organizationId, id));
  }

  // AIP-151's custom method: the colon is part of the path, escaped for Express's router.
  @Post(':operationId\\:cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel an operation',
    description:
      'A processing operation ends `failed` with `{"code": "cancelled", "retryable": true}`: no late result is written, the ' +
      "provider's job is cancelled where the provider can cancel, and a creation's scene is released (its externalRef is free " +
      'at once). A finished operation is returned as it is. Answers the operation as `GET` would show it after the call. No body.',
  })
  @ApiIdParam('operationId', OperationIdPrefix.Operation)
  @ApiOkResponse({ type: OperationResponse })
  @ApiProblems({ 400: '`invalid_id`.', 404: 'Unknown, not yours, or its scene was deleted (`not_found`).' })
  async cancel(
    @Param('operationId', OPERATION_ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperationResponse> {
    return this.answer(res, principal.organizationId, await this.operations.cancel(principal.organizationId, id));
  }

  private async answer(res: Response, organizationId: string, op: OperationResponse | null): Promise<OperationResponse> {
    if (!op) throw DomainError.notFound();
    if (op.status === 'processing') res.setHeader('retry-after', String(await this.jobs.suggestedPollDelaySeconds(organizationId)));
    res.setHeader('cache-control', 'no-store');
    return op;
  }
}
