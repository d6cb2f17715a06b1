import { Principal } from '@app/organizations';
import { UsageQuery, UsageResponse, UsageService } from '@app/tenancy';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Usage')
@Controller('v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({
    summary: "The organization's usage per UTC day",
    description:
      'Exact counters kept as things happen: creations and edits started, operations succeeded, failed and cancelled, ' +
      'what the generation provider reported it cost, bytes stored; with the current limits and what is left of the quota of today.',
  })
  @ApiOkResponse({ type: UsageResponse })
  @ApiProblems({ 422: 'A date that is not YYYY-MM-DD, `to` before `from`, or more than 93 days (`validation_failed`).' })
  report(@Query() query: UsageQuery, @CurrentPrincipal() principal: Principal): Promise<UsageResponse> {
    return this.usage.report(principal.organizationId, query);
  }
}
