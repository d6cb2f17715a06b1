import { DomainError, IdPrefix, ParseIdPipe } from '@app/core';
import { OperationResponse, OperationsService } from '@app/operations';
import { Principal } from '@app/organizations';
import { SceneJobs } from '@app/scenes';
import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Operations')
@Controller('v1/operations')
export class OperationsController {
  constructor(
    private readonly operations: OperationsService,
    private readonly jobs: SceneJobs,
  ) {}

  @Get(':operationId')
  @ApiOperation({
    summary: 'Poll an operation',
    description:
      "`processing` carries `Retry-After` (whole seconds, 1 to 10, from the queue's current depth); `succeeded` carries the scene " +
      'and its version; `failed` a safe structured error. Always `Cache-Control: no-store`.',
  })
  @ApiParam({ name: 'operationId', example: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  @ApiOkResponse({
    type: OperationResponse,
    headers: {
      'Retry-After': { description: 'Only while processing: seconds to wait before polling again.', schema: { type: 'integer' } },
    },
  })
  @ApiProblems({ 400: '`invalid_id`.', 404: 'Unknown, not yours, or its scene was deleted (`not_found`).' })
  async get(
    @Param('operationId', new ParseIdPipe(IdPrefix.Operation)) id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperationResponse> {
    const op = await this.operations.get(principal.organizationId, id);
    if (!op) throw DomainError.notFound();
    if (op.status === 'processing') res.setHeader('retry-after', String(await this.jobs.suggestedPollDelaySeconds()));
    res.setHeader('cache-control', 'no-store');
    return op;
  }
}
